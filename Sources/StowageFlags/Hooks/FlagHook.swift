import Stowage

/// Code that runs around every evaluation of a flag, as OpenFeature's hooks
/// do: before it (and may add to its context), after it, on its error, and
/// finally, whatever happened. For logging, tracing and metrics; the
/// StowageLogging and StowageTracing packages have one each.
///
/// Every evaluation runs the hooks, wherever it is asked for: a read
/// (`flags.newCheckout`), ``FlagPole/details(_:for:)``,
/// ``FlagPole/value(_:for:)``, ``FlagPole/details(forKey:for:)``, and the
/// evaluations a server makes for other programs. Global hooks
/// (``FlagHooks/add(_:)``) run before a pole's (``FlagPole/addHook(_:)``);
/// `after`, `error` and `finally` run in the opposite order.
///
/// A hook observes; it never changes a flag's value. One that throws is
/// reported (`StowageReport.handler`) and the evaluation goes on as if it had
/// not run. With no hook registered, evaluations cost what they cost without
/// this feature: reads take the path they took before.
///
/// ```swift
/// struct Audit: FlagHook {
///     func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
///         print(hook.flagKey, evaluation.variant ?? "-", evaluation.reason)
///     }
/// }
/// FlagHooks.add(Audit())
/// ```
public protocol FlagHook: Sendable {
    /// Before the evaluation; a context returned is merged into the
    /// evaluation's (its attributes over the caller's, its targeting key
    /// where it has one).
    func before(_ hook: FlagHookContext) throws -> EvaluationContext?
    /// After an evaluation that did not fail.
    func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) throws
    /// After an evaluation that failed (its reason is `ERROR`).
    func error(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>)
    /// Last, after every evaluation.
    func finally(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>)
}

extension FlagHook {
    public func before(_ hook: FlagHookContext) throws -> EvaluationContext? { nil }
    public func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) throws {}
    public func error(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {}
    public func finally(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {}
}

/// What a hook is told of an evaluation.
public struct FlagHookContext: Sendable {
    /// The flag's key.
    public let flagKey: String
    /// The flag's type, when the pole declares it; `nil` for a flag only configured.
    public let flagType: FlagType?
    /// The declared default; `nil` for a flag only configured, whose default is the caller's.
    public let defaultValue: StoredValue?
    /// The context the flag is evaluated for, with what earlier hooks added.
    public internal(set) var evaluationContext: EvaluationContext
    /// The name of the pole's container type (`AppFlags`), to tell poles apart.
    public let poleName: String
}

/// A hook's or a tracker's place in a list, to take it out again.
public struct FlagHookRegistration: Sendable {
    let remove: @Sendable () -> Void

    /// Takes the hook or tracker out; later evaluations do not run it. Calling it again does nothing.
    public func cancel() {
        remove()
    }
}
