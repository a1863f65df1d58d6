#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A flag's evaluation by key, in stored form: `value` is `nil` where the
/// code's default applies (the declared default, or the caller's for a flag
/// only configured).
struct FlagResolution: Sendable, Hashable {
    var value: StoredValue?
    var variant: String?
    var reason: FlagEvaluationReason
    var errorCode: FlagEvaluationErrorCode?
    var errorMessage: String?
    var metadata: [String: StoredValue] = [:]
}

extension FlagBoard {
    /// The flag's value for `context`, and why: an override, else its
    /// configuration (state, targeting, default variant), else its remote
    /// value, else the code's default.
    func resolve(key: String, context: EvaluationContext) -> FlagResolution {
        if indexByKey[key] != nil, let override = overrideValue(forKey: key) {
            let (compiled, _, setMetadata) = configurations.lookUp(key)
            let metadata = setMetadata.merging(compiled?.configuration.metadata ?? [:]) { _, flag in flag }
            return FlagResolution(value: override, reason: .override, metadata: metadata)
        }
        return resolveBelowOverrides(key: key, context: context)
    }

    /// The flag's evaluation as if it had no override.
    func resolveBelowOverrides(key: String, context: EvaluationContext) -> FlagResolution {
        let (compiled, broken, setMetadata) = configurations.lookUp(key)
        if let compiled {
            var resolution = evaluate(compiled, context: context)
            resolution.metadata = setMetadata.merging(compiled.configuration.metadata) { _, flag in flag }
            return resolution
        }
        if let broken {
            return FlagResolution(reason: .error, errorCode: .parseError, errorMessage: broken, metadata: setMetadata)
        }
        guard let index = indexByKey[key] else {
            return FlagResolution(
                reason: .error, errorCode: .flagNotFound, errorMessage: "\(containerName) declares no flag \(key), and no configuration names it.")
        }
        if let stored = try? remoteLayer.storedValue(forKey: key, .granted),
            let value = try? checkers[index].canonicalValue(stored, in: remote, key: key)
        {
            return FlagResolution(value: value, reason: .static)
        }
        return FlagResolution(reason: .default)
    }

    /// Whether the flag has an override of its type.
    func hasOverride(forKey key: String) -> Bool {
        ((try? overrideLayer.storedValue(forKey: key, .granted)) ?? nil) != nil
    }

    private func overrideValue(forKey key: String) -> StoredValue? {
        guard let index = indexByKey[key], let stored = (try? overrideLayer.storedValue(forKey: key, .granted)) ?? nil else { return nil }
        return try? checkers[index].canonicalValue(stored, in: overrides, key: key)
    }

    /// A configuration's evaluation, as flagd's evaluators do it.
    private func evaluate(_ compiled: CompiledFlagConfiguration, context: EvaluationContext) -> FlagResolution {
        let configuration = compiled.configuration
        let key = configuration.key
        guard configuration.isEnabled else { return FlagResolution(reason: .disabled) }
        guard let rule = compiled.rule else { return defaultVariant(of: configuration, reason: .static) }
        let result: LogicValue
        let isSplit: Bool
        do {
            (result, isSplit) = try rule.evaluateNotingSplit(context.logicData(flagKey: key, names: rule.dataNames), bucketing: bucketing)
        } catch {
            return FlagResolution(
                reason: .error, errorCode: .general, errorMessage: "flag \(key): its targeting rule failed at \(error.path): \(error.message).")
        }
        let name: String
        switch result {
        case .null: return defaultVariant(of: configuration, reason: .default)
        case .string(let text): name = text
        case .bool(let flag): name = flag ? "true" : "false"
        case .number: name = result.javaScriptString
        case .array, .object:
            return FlagResolution(
                reason: .error, errorCode: .general, errorMessage: "flag \(key): its targeting rule gave a list or an object, not the name of a variant.")
        }
        guard let value = configuration.variants[name] else {
            // The name is not shown: a rule may give a context's attribute (an email, a token) as it is.
            return FlagResolution(
                reason: .error, errorCode: .general,
                errorMessage:
                    "flag \(key): its targeting rule gave a name that is none of its variants (\(configuration.variants.keys.sorted().joined(separator: ", ")))."
            )
        }
        return FlagResolution(value: value, variant: name, reason: isSplit ? .split : .targetingMatch)
    }

    /// The default variant's value, or the code's default when there is none (reason `DEFAULT`, as flagd gives).
    private func defaultVariant(of configuration: FlagConfiguration, reason: FlagEvaluationReason) -> FlagResolution {
        guard let name = configuration.defaultVariant, let value = configuration.variants[name] else { return FlagResolution(reason: .default) }
        return FlagResolution(value: value, variant: name, reason: reason)
    }
}
