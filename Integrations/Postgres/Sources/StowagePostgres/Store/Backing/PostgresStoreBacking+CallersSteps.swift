import Stowage

/// Steps a caller takes itself. A caller that waits for its own commit
/// (`setAndCommit`, `commitPendingWrites()`, `flush()`) or its own
/// compare-and-swap (`modify`, `modifyAndCommit`) sends the statement
/// itself when the worker is idle, instead of handing it to the worker and
/// waiting to be told.
///
/// Handing it over costs a thread hop each way, and on an idle machine
/// waking a sleeping thread costs tens of microseconds: a tenth of a
/// commit's round trip. The step is the one the worker would take, from the
/// queue's front under the same flag (`stepInProgress`), so steps still run
/// one at a time and in order. It runs on ``ImmediateExecutor``: it starts
/// on the caller's thread and ends on the SwiftNIO event loop that received
/// the answer, where it updates the store and answers its waiters, so it
/// never waits for a thread of the cooperative pool or of the worker, which
/// blocking callers may all hold while they wait for it. A caller sends its
/// statement once, by its own deadline. On any failure its writes stay
/// queued and the worker, woken, sends them again with its retries (and
/// refuses them, if the database does); a compare-and-swap is answered as
/// the worker would answer it.
extension PostgresStoreBacking {
    /// Starts committing the queued writes up to `through`, when the worker
    /// is idle and one statement's batch holds them all.
    /// - Returns: the outcome to wait for, `true` once committed, `false`
    ///   when they stay queued for the worker; `nil` when the caller may not
    ///   take the step.
    func startCommitOnCallersThread(through: UInt64, by deadline: ContinuousClock.Instant) -> FirstOutcome<Bool>? {
        let writes = update { state -> [State.PendingWrite]? in
            guard through > state.settledThrough, mayTakeStepsOnCallersThreads(state), case .write = state.queue.first else { return nil }
            let writes = state.writesAtFront(upTo: options.maximumBatchSize)
            guard let last = writes.last, last.number >= through else { return nil }
            state.stepInProgress = true
            return writes
        }
        guard let writes else { return nil }
        let committed = FirstOutcome<Bool>()
        ImmediateExecutor.shared.start { [self] in
            let done = await commit(writes, callersDeadline: deadline)
            endCallersStep()
            committed.resolve(.success(done))
        }
        return committed
    }

    /// Starts the compare-and-swap `reply` answers, when the worker is idle
    /// and it is the queue's front.
    /// - Returns: whether it started; it then answers `reply`, by its deadline.
    func startReplacementOnCallersThread(_ reply: PendingReply<Bool>) -> Bool {
        let replacement = update { state -> State.Replacement? in
            guard mayTakeStepsOnCallersThreads(state), case .replace(let replacement) = state.queue.first, replacement.reply === reply else {
                return nil
            }
            state.stepInProgress = true
            return replacement
        }
        guard let replacement else { return false }
        ImmediateExecutor.shared.start { [self] in
            await perform(replacement, onCallersThread: true)
            endCallersStep()
        }
        return true
    }

    /// Whether a caller may take the next step: the store runs and is
    /// loaded, the last exchange succeeded, the worker is idle, and no read
    /// the listener asked for comes first.
    func mayTakeStepsOnCallersThreads(_ state: State) -> Bool {
        state.phase == .running && state.isReady && !state.stepInProgress && state.connection == .connected
            && !state.resynchronizationRequested && state.keysToRefresh.isEmpty
    }

    /// Hands the queue back to the worker, and wakes it when there is something for it to do.
    private func endCallersStep() {
        let (hasWork, stepEnded) = update { state in
            state.stepInProgress = false
            defer { state.stepEndedWaiter = nil }
            let hasWork = !state.queue.isEmpty || state.resynchronizationRequested || !state.keysToRefresh.isEmpty || state.phase != .running
            return (hasWork, state.stepEndedWaiter)
        }
        stepEnded?.resolve(.success(()))
        if hasWork { wake.yield() }
    }
}
