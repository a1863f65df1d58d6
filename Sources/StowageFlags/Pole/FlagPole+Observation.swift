extension FlagPole {
    /// The flag's value now, then after every change, whether it came from
    /// an override, a remote update or another process; an independent
    /// stream per call.
    ///
    /// For a flag whose configuration decides its value per context (a
    /// targeting rule), this follows its override and its default variant's
    /// value, not the rule: listen to ``changes`` to hear of a rule's changes.
    ///
    /// A key path that names no flag is reported (`StowageReport.handler`)
    /// and gives a stream of the value it reads now, which then ends.
    public func changes<Value: Storable>(_ keyPath: KeyPath<Container, Value>) -> AsyncStream<Value> {
        do { return try reference(of: keyPath).changes } catch {
            error.report(from: board.store)
            let value = container[keyPath: keyPath]
            return AsyncStream { continuation in
                continuation.yield(value)
                continuation.finish()
            }
        }
    }

    /// Calls `handler` with the flag's value after every change (not with the current one).
    ///
    /// A key path that names no flag is reported and observes nothing.
    /// - Returns: a token; observing stops when it is cancelled or released.
    public func observe<Value: Storable>(_ keyPath: KeyPath<Container, Value>, _ handler: @escaping @Sendable (Value) -> Void) -> ObservationToken {
        do { return try reference(of: keyPath).observe(handler) } catch {
            error.report(from: board.store)
            return ObservationToken {}
        }
    }

    /// Every change of any flag's value or origin, as the flag's new state:
    /// an independent stream per access, ending when the consumer stops.
    /// An override set to the remote value arrives too: the origin changed.
    /// A change of a flag's configuration arrives as its new state, with a
    /// targeted flag's value for an empty context.
    public var changes: AsyncStream<FlagState> {
        board.changes
    }

    /// Calls `handler` with a flag's new state after every change of its value
    /// or origin, one call at a time, on a thread that made or announced a
    /// change (one thread delivers while others keep changing flags).
    /// - Returns: a token; observing stops when it is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (FlagState) -> Void) -> ObservationToken {
        board.observe(handler)
    }
}
