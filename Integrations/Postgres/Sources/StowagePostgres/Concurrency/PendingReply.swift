import Stowage

/// The answer to one request the store's worker serves, given once: by the
/// worker, or by the caller's deadline. A request the worker has not started
/// when its time is up is skipped, so a caller told "timed out" about it
/// knows nothing was written; one it has started has twice the time, and
/// past that the caller is told the outcome is unknown.
final class PendingReply<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, StorageError>?
        var waiter: CheckedContinuation<Result<Value, StorageError>, Never>?
        var started = false
    }

    private let state = Locked(State())

    init() {}

    /// Marks the request taken by the worker; `false` when it already expired.
    func start() -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.started = true
            return true
        }
    }

    /// Answers, unless answered already.
    /// - Returns: whether this answer was the one given.
    @discardableResult
    func resolve(_ outcome: Result<Value, StorageError>) -> Bool {
        let (given, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Value, StorageError>, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return given
    }

    /// Whether the worker has started on the request.
    var isStarted: Bool { state.withLock { $0.started } }

    /// The answer, once there is one.
    func value() async throws(StorageError) -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, StorageError>, Never>) in
            let ready = state.withLock { state -> Result<Value, StorageError>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }

    /// The answer, or `timeoutError` after `timeout`: a request the worker
    /// has not started is then skipped; for one it has started, the answer
    /// comes after twice the time at most (a statement on a connection that
    /// hangs without failing), and the error must say the outcome is unknown.
    func value(within timeout: Duration, orElse timeoutError: @escaping @Sendable (_ started: Bool) -> StorageError) async throws(StorageError) -> Value {
        let timer = Task(executorPreference: StoreExecutor.shared) { [self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            if !isStarted { return _ = resolve(.failure(timeoutError(false))) }
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { _ = resolve(.failure(timeoutError(true))) }
        }
        defer { timer.cancel() }
        return try await value()
    }
}
