/// A flag's value for one context, with why it is that value: what
/// OpenFeature calls resolution details.
public struct FlagEvaluation<Value: Sendable>: Sendable {
    public var key: String
    /// The value: the variant's, the override's, the remote value, or the
    /// code's default when the reason is ``FlagEvaluationReason/default``
    /// without a variant, ``FlagEvaluationReason/disabled`` or ``FlagEvaluationReason/error``.
    public var value: Value
    /// The name of the variant the configuration gave; `nil` when none did.
    public var variant: String?
    public var reason: FlagEvaluationReason
    /// Set when the reason is ``FlagEvaluationReason/error``.
    public var errorCode: FlagEvaluationErrorCode?
    /// What went wrong, naming the flag; never a secret value.
    public var errorMessage: String?
    /// The flag set's metadata overlaid with the flag's own.
    public var metadata: [String: StoredValue]

    public init(
        key: String, value: Value, variant: String? = nil, reason: FlagEvaluationReason,
        errorCode: FlagEvaluationErrorCode? = nil, errorMessage: String? = nil, metadata: [String: StoredValue] = [:]
    ) {
        self.key = key
        self.value = value
        self.variant = variant
        self.reason = reason
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.metadata = metadata
    }
}

extension FlagEvaluation: Equatable where Value: Equatable {}
extension FlagEvaluation: Hashable where Value: Hashable {}

/// Why a flag has its value, as OpenFeature names it (the raw values are
/// OpenFeature's, and Stowage's own `OVERRIDE`).
public enum FlagEvaluationReason: String, Sendable, Hashable, CaseIterable {
    /// A local override set the value, whatever the context.
    case override = "OVERRIDE"
    /// The same for every context: a configuration without targeting, or a plain remote value.
    case `static` = "STATIC"
    /// The targeting rule chose the variant.
    case targetingMatch = "TARGETING_MATCH"
    /// A `fractional` split of the targeting rule chose the variant.
    case split = "SPLIT"
    /// The default variant, or the code's default: the rule gave no variant,
    /// or there is no configuration and no remote value.
    case `default` = "DEFAULT"
    /// The configuration's state is `DISABLED`: the code's default.
    case disabled = "DISABLED"
    /// The evaluation failed; the value is the code's default and
    /// ``FlagEvaluation/errorCode`` says why.
    case error = "ERROR"
}

/// Why an evaluation failed, as OpenFeature names it.
public enum FlagEvaluationErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No flag is declared or configured with the key.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The flag's value is not of the type asked for.
    case typeMismatch = "TYPE_MISMATCH"
    /// The flag's configuration could not be parsed, and it never had a good one.
    case parseError = "PARSE_ERROR"
    /// A rule needed a targeting key the context lacks. flagd's rules never
    /// fail for this (a `fractional` without one gives the default variant,
    /// as flagd's evaluators do); it is here for providers that report it.
    case targetingKeyMissing = "TARGETING_KEY_MISSING"
    /// Anything else: a rule that gave no variant of the flag, or ran past its bounds.
    case general = "GENERAL"
}
