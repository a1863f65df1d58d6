import Stowage

extension FlagPole {
    /// Runs `hook` around every evaluation of this pole's flags, after the
    /// global hooks (``FlagHooks/add(_:)``).
    /// - Returns: the registration, to take the hook out again.
    @discardableResult
    public func addHook(_ hook: some FlagHook) -> FlagHookRegistration {
        board.hooks.add(hook)
    }

    /// Calls `tracker` with every event this pole tracks, after the global trackers.
    /// - Returns: the registration, to take the tracker out again.
    @discardableResult
    public func addTracker(_ tracker: @escaping @Sendable (FlagTrackingEvent) -> Void) -> FlagHookRegistration {
        board.hooks.addTracker(tracker)
    }

    /// Tells the trackers that something an experiment measures happened,
    /// for whom, so that an outcome can be tied to the variant they were given.
    ///
    /// ```swift
    /// flags.track("checkout-completed", value: order.total)
    /// ```
    /// - Parameters:
    ///   - name: what happened.
    ///   - context: who did it; the task's context unless given.
    ///   - value: a number the experiment sums or averages.
    ///   - attributes: anything else the trackers need.
    public func track(_ name: String, context: EvaluationContext = .current, value: Double? = nil, attributes: [String: StoredValue] = [:]) {
        board.track(FlagTrackingEvent(name: name, context: context, value: value, attributes: attributes, poleName: board.containerName))
    }
}
