import Stowage

/// The outcome of a race, given once, by whichever side finishes first: an
/// operation, or its deadline. The waiter does not wait for the loser.
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiter: CheckedContinuation<Result<Value, any Error>, Never>?
    }

    private let state = Locked(State())

    /// Gives the outcome, unless one was given already.
    /// - Returns: whether this one was the outcome.
    @discardableResult
    func give(_ outcome: Result<Value, any Error>) -> Bool {
        let (given, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Value, any Error>, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return given
    }

    /// Whether the outcome is given already.
    var isGiven: Bool { state.withLock { $0.outcome != nil } }

    func value() async throws -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }
}
