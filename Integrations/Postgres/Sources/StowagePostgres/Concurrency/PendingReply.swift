import Stowage
import StowageLocking

/// The answer to one request the store's worker serves, given once: by the
/// worker, or by the caller's deadline. A request the worker has not started
/// when its time is up is skipped, so a caller told "timed out" about it
/// knows nothing was written. One it has started ends by the same deadline,
/// as the worker gives it only the time left; a short grace after it, the
/// caller is told the outcome is unknown, should the worker's answer be late.
typealias PendingReply<Value: Sendable> = SharedOutcome<Value, StorageError>

extension SharedOutcome where Failure == StorageError {
    /// How long after the deadline a started request's caller waits for the
    /// worker's own answer, which comes at the deadline.
    static var lateAnswerGrace: Duration { .milliseconds(500) }

    /// The answer, or `timeoutError` after `timeout`.
    func value(within timeout: Duration, orElse timeoutError: @escaping @Sendable (_ started: Bool) -> StorageError) async throws(StorageError) -> Value {
        try await value(by: .now + timeout, orElse: timeoutError)
    }

    /// The answer, or `timeoutError` at `deadline`: `timeoutError(false)`
    /// (nothing was written) for a request the worker has not started, which
    /// it then skips, or whose `gate` no connection has passed, which the
    /// deadline closes; else `timeoutError(true)`, which must say the outcome
    /// is unknown, only if the worker's own answer, due at the deadline, has
    /// not come ``lateAnswerGrace`` later.
    func value(
        by deadline: ContinuousClock.Instant, gate: StatementGate? = nil, orElse timeoutError: @escaping @Sendable (_ mayHaveBeenSent: Bool) -> StorageError
    ) async throws(StorageError) -> Value {
        let lateAnswer = Locked<Deadlines.Entry?>(nil)
        let timer = Deadlines.shared.schedule(in: deadline - .now) { [self] in
            let neverSent =
                if !isStarted { true } else if let gate { gate.closeAtDeadline() == nil } else { false }
            if neverSent { return _ = resolve(.failure(timeoutError(false))) }
            let late = Deadlines.shared.schedule(in: Self.lateAnswerGrace) { _ = self.resolve(.failure(timeoutError(true))) }
            // Set after the caller had its answer (and cancelled the rest), it finds the outcome given and does nothing.
            lateAnswer.withLock { $0 = late }
        }
        defer {
            timer.cancel()
            lateAnswer.withLock { $0?.cancel() }
        }
        return try await value()
    }
}
