extension FlagBoard {
    /// Every change of any flag's value or origin, as the flag's new state.
    var changes: AsyncStream<FlagState> {
        let (stream, continuation) = AsyncStream.makeStream(of: FlagState.self, bufferingPolicy: .unbounded)
        let token = observe { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Calls `handler` with a flag's new state after every change of its value or origin.
    func observe(_ handler: @escaping @Sendable (FlagState) -> Void) -> ObservationToken {
        // A targeted flag's state for an empty context, whichever thread announced the change.
        let feed = FlagChangeFeed(
            read: { [self] index in EvaluationContext.$current.withValue(EvaluationContext()) { currentState(at: index) } }, deliver: handler)
        let indexByKey = self.indexByKey
        let count = definitions.count
        // Subscribed before the states to compare with are read, so that no change in between is lost.
        let token = store.observe { change in
            switch change {
            case .allKeys: feed.flagsMayHaveChanged(0..<count)
            case .key(FlagConfigurations.storeKey): feed.flagsMayHaveChanged(0..<count)
            case .key(let key): if let index = indexByKey[key] { feed.flagsMayHaveChanged([index]) }
            }
        }
        feed.start(from: all)
        return token
    }
}
