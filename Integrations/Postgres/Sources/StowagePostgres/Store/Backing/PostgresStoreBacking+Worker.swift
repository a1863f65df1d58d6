import Stowage
import StowageLocking

/// The worker: one task per running store, on ``StoreExecutor``, takes the
/// queue's front in order: a run of writes becomes one statement; a
/// compare-and-swap or a reload runs alone; reads the listener asked for
/// come first. While the database is unreachable it tries again with
/// growing delays and keeps everything queued.
extension PostgresStoreBacking {
    enum Step {
        case writes([State.PendingWrite])
        case replace(State.Replacement)
        case reload(keys: Set<String>?, reply: PendingReply<Void>?)
        /// Not in the queue: a full read after `LISTEN`, on the timer, or to find out whether an unreachable database is back.
        case resynchronize
        /// Not in the queue: the keys notices named.
        case refresh(Set<String>)
    }

    /// Serves the queue until the store stops: once it is stopping and the
    /// queue is empty, or at once when the task is cancelled.
    func work() async {
        // Listen first, then load, so no change falls between the two; a listener that can not connect does not hold the store up.
        _ = try? await listenerSettled.value(within: options.operationTimeout) { _ in StorageError(code: .timedOut, reason: "") }
        await loadUntilReady()
        for await _ in wakeups {
            while !Task.isCancelled, let step = nextStep() {
                await perform(step)
                update { $0.stepInProgress = false }
            }
            if Task.isCancelled || state.withLock({ $0.phase != .running && $0.queue.isEmpty }) { break }
        }
    }

    /// The front of the queue: every write up to the batch size, or one
    /// other request; `nil` while a caller takes a step itself (it wakes
    /// the worker when done).
    private func nextStep() -> Step? {
        update { state -> Step? in
            if state.phase != .running {
                // A stopping store only commits what is queued.
                state.resynchronizationRequested = false
                state.keysToRefresh.removeAll()
            }
            guard !state.stepInProgress else { return nil }
            let step = Self.front(of: &state, batchSize: options.maximumBatchSize)
            if step != nil { state.stepInProgress = true }
            return step
        }
    }

    /// The next step: reads the listener asked for first, unless reads are
    /// paused after a failure, then the queue's front.
    private static func front(of state: inout State, batchSize: Int) -> Step? {
        let mayRead = state.readsPausedUntil.map { ContinuousClock.now >= $0 } ?? true
        if mayRead, state.resynchronizationRequested {
            state.resynchronizationRequested = false
            // The full read starts after every notice so far, and covers the keys they named.
            state.keysToRefresh.removeAll()
            return .resynchronize
        }
        if mayRead, !state.keysToRefresh.isEmpty {
            defer { state.keysToRefresh.removeAll() }
            return .refresh(state.keysToRefresh)
        }
        guard let first = state.queue.first else { return nil }
        switch first {
        case .replace(let replacement): return .replace(replacement)
        case .reload(let keys, let reply): return .reload(keys: keys, reply: reply)
        case .write: return .writes(state.writesAtFront(upTo: batchSize))
        }
    }

    private func perform(_ step: Step) async {
        switch step {
        case .writes(let writes): await commit(writes)
        case .replace(let replacement): await perform(replacement)
        case .reload(let keys, let reply): await reload(keys: keys, reply: reply)
        case .resynchronize: await resynchronize()
        case .refresh(let keys): await refresh(keys)
        }
    }

    /// Waits `delay` with up to a quarter more at random, and doubles it up to the maximum.
    func pause(_ delay: inout Duration) async {
        let jitter = delay * Double.random(in: 0...0.25)
        try? await Task.sleep(for: delay + jitter)
        delay = min(delay * 2, options.maximumRetryDelay)
    }
}
