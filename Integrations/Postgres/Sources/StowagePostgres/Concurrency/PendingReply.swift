import Stowage

/// The answer to one request the store's worker serves, given once: by the
/// worker, or, if the worker has not started on the request when its time
/// is up, by the caller's deadline. A request once started is always
/// answered by the worker, so a caller is never told "timed out" about a
/// change that then lands.
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
    func resolve(_ outcome: Result<Value, StorageError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Value, StorageError>, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Answers with `error` if the worker has not started on the request.
    func expire(with error: StorageError) {
        let notStarted = state.withLock { !$0.started }
        if notStarted { resolve(.failure(error)) }
    }

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

    /// The answer, or `timeoutError` after `timeout` if the worker has not started on the request by then.
    func value(within timeout: Duration, orElse timeoutError: @escaping @Sendable () -> StorageError) async throws(StorageError) -> Value {
        let timer = Task(executorPreference: StoreExecutor.shared) { [self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { expire(with: timeoutError()) }
        }
        defer { timer.cancel() }
        return try await value()
    }
}
