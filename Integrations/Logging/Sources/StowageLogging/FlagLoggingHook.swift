public import Logging
public import Stowage
public import StowageFlags

/// Logs every evaluation of a flag, as OpenFeature's logging hooks do: the
/// key, the value, the variant and the reason after it, the error code and
/// message when it failed.
///
/// ```swift
/// FlagHooks.add(FlagLoggingHook(logger: logger))     // every pole's flags
/// flags.addHook(FlagLoggingHook(logger: logger))     // one pole's
/// ```
///
/// An evaluation is logged at `debug` and a failed one at `warning` (both
/// can be changed). The context's attributes (emails, plans, countries: often
/// personal data) are left out unless `includesContext` is set; its
/// targeting key is left out with them.
public struct FlagLoggingHook: FlagHook {
    public var logger: Logger
    /// The level of an evaluation that did not fail.
    public var level: Logger.Level
    /// The level of one that failed.
    public var errorLevel: Logger.Level
    /// Whether lines carry the evaluation context, targeting key and attributes.
    public var includesContext: Bool

    public init(logger: Logger, level: Logger.Level = .debug, errorLevel: Logger.Level = .warning, includesContext: Bool = false) {
        self.logger = logger
        self.level = level
        self.errorLevel = errorLevel
        self.includesContext = includesContext
    }

    public func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
        logger.log(
            level: level, "Flag \"\(hook.flagKey)\" evaluated to \(evaluation.value.map { "\($0)" } ?? "the caller's default") (\(evaluation.reason.rawValue))",
            metadata: metadata(hook, evaluation))
    }

    public func error(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
        logger.log(
            level: errorLevel, "Flag \"\(hook.flagKey)\" could not be evaluated: \(evaluation.errorMessage ?? "no reason given")",
            metadata: metadata(hook, evaluation))
    }

    /// The metadata keys of the lines, in the style of ``StowageLogMetadata``.
    public enum MetadataKey {
        public static let flagKey = "stowage.flag.key"
        public static let variant = "stowage.flag.variant"
        public static let reason = "stowage.flag.reason"
        public static let errorCode = "stowage.flag.error_code"
        public static let pole = "stowage.flag.pole"
        public static let targetingKey = "stowage.flag.targeting_key"
        public static let context = "stowage.flag.context"
    }

    private func metadata(_ hook: FlagHookContext, _ evaluation: FlagEvaluation<StoredValue?>) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            MetadataKey.flagKey: "\(hook.flagKey)", MetadataKey.reason: "\(evaluation.reason.rawValue)", MetadataKey.pole: "\(hook.poleName)",
        ]
        if let variant = evaluation.variant { metadata[MetadataKey.variant] = "\(variant)" }
        if let code = evaluation.errorCode { metadata[MetadataKey.errorCode] = "\(code.rawValue)" }
        if includesContext {
            if let key = hook.evaluationContext.targetingKey { metadata[MetadataKey.targetingKey] = "\(key)" }
            metadata[MetadataKey.context] = .dictionary(
                hook.evaluationContext.attributes.mapValues { value in
                    if case .string(let text) = value { return .string(text) }
                    return .string("\(value)")
                })
        }
        return metadata
    }
}
