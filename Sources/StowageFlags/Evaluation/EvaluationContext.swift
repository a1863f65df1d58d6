#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who is asking for a flag: the targeting key (a user, session or tenant
/// id, what a percentage rollout buckets by) and typed attributes a
/// targeting rule reads with `var`.
///
/// ```swift
/// let context = EvaluationContext(targetingKey: user.id, attributes: ["email": .string(user.email), "plan": "pro"])
/// let details = flags.details(\.newCheckout, for: context)
///
/// // A server sets it once per request; every flag read inside sees it.
/// try await EvaluationContext.$current.withValue(context) { try await handle(request) }
/// ```
///
/// Attributes are stored values: text, booleans, numbers, dates, lists and
/// nested dictionaries (`var` reads `user.address.city`). A rule sees a date
/// as its ISO 8601 text, as an OpenFeature client sending JSON sends it,
/// and every number as a double, as flagd's evaluators do. A rule also sees
/// `targetingKey`, and flagd's `$flagd.flagKey` and `$flagd.timestamp`
/// (seconds since 1970), which replace attributes of those names.
public struct EvaluationContext: Sendable, Hashable {
    /// What a `fractional` split buckets by unless its rule names something else.
    public var targetingKey: String?
    public var attributes: [String: StoredValue]

    public init(targetingKey: String? = nil, attributes: [String: StoredValue] = [:]) {
        self.targetingKey = targetingKey
        self.attributes = attributes
    }

    /// The context of the task: what a flag read without a context is
    /// evaluated for. Empty unless a caller sets it with `$current.withValue`.
    @TaskLocal public static var current = EvaluationContext()

    /// The data a rule evaluates against for `flagKey`, now: every entry, or
    /// only `names` (those the rule can read), so a large context costs what
    /// the rule reads of it.
    func logicData(flagKey: String, names: Set<String>?) -> LogicValue {
        var entries: [String: LogicValue] = [:]
        if let names {
            entries.reserveCapacity(names.count)
            for name in names {
                if let value = attributes[name] { entries[name] = LogicValue(value) }
            }
        } else {
            entries = attributes.mapValues(LogicValue.init)
        }
        if names?.contains("targetingKey") ?? true { entries["targetingKey"] = targetingKey.map(LogicValue.string) ?? .null }
        if names?.contains("$flagd") ?? true {
            entries["$flagd"] = .object(["flagKey": .string(flagKey), "timestamp": .number(Date().timeIntervalSince1970.rounded(.down))])
        }
        return .object(entries)
    }
}
