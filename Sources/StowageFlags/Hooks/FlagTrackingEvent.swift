import Stowage

/// Something a user did that an experiment measures, tied to who did it,
/// so that an outcome can be tied to the variant they were given, as
/// OpenFeature's tracking does: a purchase, a sign-up, a click.
public struct FlagTrackingEvent: Sendable, Hashable {
    /// What happened: `"checkout-completed"`.
    public var name: String
    /// Who did it: the context their flags were evaluated for.
    public var context: EvaluationContext
    /// A number the experiment sums or averages: an order's total.
    public var value: Double?
    /// Anything else the handlers need.
    public var attributes: [String: StoredValue]
    /// The name of the pole's container type that tracked it.
    public var poleName: String

    public init(name: String, context: EvaluationContext, value: Double? = nil, attributes: [String: StoredValue] = [:], poleName: String) {
        self.name = name
        self.context = context
        self.value = value
        self.attributes = attributes
        self.poleName = poleName
    }
}
