import Stowage
import StowageLocking

/// An outcome given once, by whichever side comes first, to any number of
/// waiters: the answer to a request the store's worker serves
/// (``PendingReply``) or the winner of a statement's race with its deadline
/// (``FirstOutcome``). No waiter waits for the side that lost.
final class SharedOutcome<Value: Sendable, Failure: Error>: Sendable {
    private struct State {
        var outcome: Result<Value, Failure>?
        var waiters: [CheckedContinuation<Result<Value, Failure>, Never>] = []
        var started = false
    }

    private let state = Locked(State())

    /// Marks the work that gives the outcome as begun; `false` when the
    /// outcome was given already (a request that expired before the worker took it).
    func start() -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.started = true
            return true
        }
    }

    /// Whether ``start()`` marked the work as begun.
    var isStarted: Bool { state.withLock { $0.started } }

    /// Gives the outcome, unless one was given already.
    /// - Returns: whether this one was the outcome.
    @discardableResult
    func resolve(_ outcome: Result<Value, Failure>) -> Bool {
        let (given, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Result<Value, Failure>, Never>]) in
            guard state.outcome == nil else { return (false, []) }
            state.outcome = outcome
            defer { state.waiters = [] }
            return (true, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        return given
    }

    /// Whether the outcome is given already.
    var isResolved: Bool { state.withLock { $0.outcome != nil } }

    /// How many callers of ``value()`` wait for the outcome.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// The outcome, once given; every caller gets it.
    func value() async throws(Failure) -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            let ready = state.withLock { state -> Result<Value, Failure>? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }
}
