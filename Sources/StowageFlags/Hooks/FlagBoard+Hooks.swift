public import Stowage

extension StorageError.Code {
    /// A flag hook threw; the evaluation went on without it.
    public static let hookFailed = Self("hookFailed")
}

extension FlagBoard {
    /// Whether any hook, global or the pole's, is registered: two relaxed
    /// loads. Plain reads do not ask; they learn it from their flag's mark
    /// (``FlagConfigurations``).
    var hasHooks: Bool { !FlagHooks.global.isEmpty || !hooks.isEmpty }

    /// What `resolve` gives for the context, with the hooks run around it:
    /// `before` (which may add to the context), then the evaluation, then
    /// `after` or `error`, then `finally`, the last three in reverse order.
    func evaluate(key: String, context: EvaluationContext, _ resolve: (EvaluationContext) -> FlagResolution) -> FlagResolution {
        guard hasHooks else { return resolve(context) }
        let hooks = FlagHooks.global.hooks + self.hooks.hooks
        let index = indexByKey[key]
        var hook = FlagHookContext(
            flagKey: key, flagType: index.map { definitions[$0].type }, defaultValue: index.map { definitions[$0].defaultValue },
            evaluationContext: context, poleName: containerName)
        for each in hooks {
            do {
                if let added = try each.before(hook) { hook.evaluationContext.merge(added) }
            } catch {
                report(error, of: each, stage: "before", key: key)
            }
        }
        let resolution = resolve(hook.evaluationContext)
        let evaluation = FlagEvaluation(resolution, key: key, value: resolution.value ?? hook.defaultValue)
        for each in hooks.reversed() {
            guard resolution.reason != .error else {
                each.error(hook, evaluation: evaluation)
                continue
            }
            do { try each.after(hook, evaluation: evaluation) } catch { report(error, of: each, stage: "after", key: key) }
        }
        for each in hooks.reversed() { each.finally(hook, evaluation: evaluation) }
        return resolution
    }

    /// The flag's value for `context` (its override, else its configuration,
    /// else its remote value, else nothing), with the hooks run around it.
    func resolveWithHooks(key: String, context: EvaluationContext) -> FlagResolution {
        evaluate(key: key, context: context) { resolve(key: key, context: $0) }
    }

    /// Tells the global trackers and the pole's of an event.
    func track(_ event: FlagTrackingEvent) {
        for tracker in FlagHooks.global.trackers + hooks.trackers { tracker(event) }
    }

    private func report(_ error: any Error, of hook: any FlagHook, stage: String, key: String) {
        StorageError(
            code: .hookFailed, key: key, reason: "the flag hook \(type(of: hook)) failed in its \(stage) stage; the evaluation went on without it.",
            underlyingError: error
        ).report(from: store)
    }
}

extension EvaluationContext {
    /// Adds `other`'s attributes over these, and its targeting key where it has one.
    mutating func merge(_ other: EvaluationContext) {
        if let key = other.targetingKey { targetingKey = key }
        attributes.merge(other.attributes) { _, new in new }
    }
}
