public import Stowage
public import StowageFlags
public import Tracing

/// Records every evaluation of a flag as an event on the span that is
/// current where the flag is read, with OpenTelemetry's semantic conventions
/// for feature flags, so a trace shows which variant each request was given
/// and why.
///
/// ```swift
/// FlagHooks.add(FlagTracingHook())          // the tracer InstrumentationSystem has
/// ```
///
/// The event is `feature_flag.evaluation`, with `feature_flag.key`,
/// `feature_flag.result.variant`, `feature_flag.result.reason` (OpenTelemetry's
/// lowercase names: `targeting_match`, `split`, `static`, `default`,
/// `disabled`, `error`), `feature_flag.result.value` (text, a number or a
/// boolean; left out for lists and objects), `feature_flag.provider.name`
/// (`Stowage`), `feature_flag.set.id` where the flag set names one
/// (`flagSetId`), and `error.type` with `error.message` for a failed
/// evaluation. The context's attributes are never recorded; its targeting
/// key is, as `feature_flag.context.id`, only when `recordsTargetingKey` is set.
/// Outside a span, or with a tracer that can not tell the current span, nothing is recorded.
public struct FlagTracingHook: FlagHook {
    /// The tracer whose current span gets the events.
    public var tracer: any Tracer
    /// Whether events carry the context's targeting key (a user's id, often personal data).
    public var recordsTargetingKey: Bool

    public init(tracer: any Tracer = InstrumentationSystem.tracer, recordsTargetingKey: Bool = false) {
        self.tracer = tracer
        self.recordsTargetingKey = recordsTargetingKey
    }

    public func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
        record(hook, evaluation)
    }

    public func error(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
        record(hook, evaluation)
    }

    /// OpenTelemetry's name of a reason.
    public static func semanticReason(_ reason: FlagEvaluationReason) -> String {
        switch reason {
        case .static: "static"
        case .targetingMatch: "targeting_match"
        case .split: "split"
        case .default: "default"
        case .disabled: "disabled"
        case .error: "error"
        // OpenTelemetry has no name for a local override; it is a value set for everyone.
        case .override: "static"
        }
    }

    private func record(_ hook: FlagHookContext, _ evaluation: FlagEvaluation<StoredValue?>) {
        guard let span = tracer.activeSpan(identifiedBy: ServiceContext.current ?? .topLevel) else { return }
        var attributes: SpanAttributes = [:]
        attributes["feature_flag.key"] = hook.flagKey
        attributes["feature_flag.provider.name"] = "Stowage"
        attributes["feature_flag.result.reason"] = Self.semanticReason(evaluation.reason)
        if let variant = evaluation.variant { attributes["feature_flag.result.variant"] = variant }
        switch evaluation.value {
        case .bool(let value)?: attributes["feature_flag.result.value"] = value
        case .string(let value)?: attributes["feature_flag.result.value"] = value
        case .signedInteger(let value)?: attributes["feature_flag.result.value"] = Int(clamping: value)
        case .unsignedInteger(let value)?: attributes["feature_flag.result.value"] = Int(clamping: value)
        case .double(let value)?: attributes["feature_flag.result.value"] = value
        default: break
        }
        if case .string(let setID)? = evaluation.metadata["flagSetId"] { attributes["feature_flag.set.id"] = setID }
        if recordsTargetingKey, let key = hook.evaluationContext.targetingKey { attributes["feature_flag.context.id"] = key }
        if let code = evaluation.errorCode {
            attributes["error.type"] = code.rawValue.lowercased()
            if let message = evaluation.errorMessage { attributes["error.message"] = message }
        }
        span.addEvent(SpanEvent(name: "feature_flag.evaluation", attributes: attributes))
    }
}
