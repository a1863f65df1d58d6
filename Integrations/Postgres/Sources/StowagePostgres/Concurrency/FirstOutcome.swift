import Stowage

/// The outcome of a race, given once, by whichever side finishes first: an
/// operation, or its deadline. Its waiters, any number of them, do not
/// wait for the loser.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiters: [CheckedContinuation<Result<Value, any Error>, Never>] = []
    }

    private let state = Locked(State())

    /// Gives the outcome, unless one was given already.
    /// - Returns: whether this one was the outcome.
    @discardableResult
    func give(_ outcome: Result<Value, any Error>) -> Bool {
        let (given, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Result<Value, any Error>, Never>]) in
            guard state.outcome == nil else { return (false, []) }
            state.outcome = outcome
            defer { state.waiters = [] }
            return (true, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        return given
    }

    /// Whether the outcome is given already.
    var isGiven: Bool { state.withLock { $0.outcome != nil } }

    /// How many callers of ``value()`` wait for the outcome.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// The outcome, once given; every caller gets it.
    func value() async throws -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }
}
