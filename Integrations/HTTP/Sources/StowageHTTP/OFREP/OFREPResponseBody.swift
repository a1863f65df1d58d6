import Stowage
import StowageFlags
import StowageJSON

/// The JSON bodies of OFREP's responses, as its OpenAPI description gives them.
enum OFREPResponseBody {
    /// A flag's evaluation: `evaluationSuccess`, or `evaluationFailure` when it failed.
    ///
    /// OFREP's reasons are STATIC, TARGETING_MATCH, SPLIT, DISABLED and
    /// UNKNOWN. Stowage's DEFAULT (a default variant, or the declared
    /// default) and OVERRIDE (an operator's value on this server) are sent
    /// as STATIC: neither depends on the context. A value of `nil`, the
    /// code's default, and the value of a disabled flag are sent without
    /// `value`, as OFREP's `codeDefaultFlag`: the client's default applies.
    /// Where no configuration names a variant, the variant names where the
    /// value came from (``originVariant(_:)``): OFREP makes `variant`
    /// optional, but OpenFeature's Python provider (0.3) fails without one.
    static func evaluation(_ evaluation: FlagEvaluation<StoredValue?>) -> StoredValue {
        var members: [String: StoredValue] = ["key": .string(evaluation.key)]
        // Booleans, text and numbers only, as OFREP's schema asks: the engine takes no others.
        if !evaluation.metadata.isEmpty { members["metadata"] = .dictionary(evaluation.metadata) }
        if let code = evaluation.errorCode {
            members["errorCode"] = .string(errorCode(code))
            if let details = evaluation.errorMessage { members["errorDetails"] = .string(details) }
            return .dictionary(members)
        }
        members["reason"] = .string(reason(evaluation.reason))
        members["variant"] = .string(evaluation.variant ?? originVariant(evaluation.reason))
        // A disabled flag's value is the caller's default, not the one the pole declares.
        if evaluation.reason != .disabled, let value = evaluation.value { members["value"] = value }
        return .dictionary(members)
    }

    /// The body of a failed request: `evaluationFailure` (single, with the
    /// flag's key) or `bulkEvaluationFailure` (bulk, without one).
    static func failure(key: String?, code: String, details: String) -> StoredValue {
        var members: [String: StoredValue] = ["errorCode": .string(code), "errorDetails": .string(details)]
        if let key { members["key"] = .string(key) }
        return .dictionary(members)
    }

    /// OFREP's name of an error code. TYPE_MISMATCH, which a server that
    /// sends any type never gives, is GENERAL, the one code OFREP allows for it.
    static func errorCode(_ code: FlagEvaluationErrorCode) -> String {
        switch code {
        case .flagNotFound, .parseError, .targetingKeyMissing, .general: code.rawValue
        case .typeMismatch: FlagEvaluationErrorCode.general.rawValue
        }
    }

    static func reason(_ reason: FlagEvaluationReason) -> String {
        switch reason {
        case .static, .default, .override: FlagEvaluationReason.static.rawValue
        case .targetingMatch, .split, .disabled: reason.rawValue
        case .error: "UNKNOWN"
        }
    }

    /// The variant of a value no configuration named: `override` (an
    /// operator's, on this server), `remote` (a plain value a payload or the
    /// fleet sent), `disabled`, or `default` (the declared default).
    static func originVariant(_ reason: FlagEvaluationReason) -> String {
        switch reason {
        case .override: "override"
        case .static: "remote"
        case .disabled: "disabled"
        case .default, .targetingMatch, .split, .error: "default"
        }
    }
}
