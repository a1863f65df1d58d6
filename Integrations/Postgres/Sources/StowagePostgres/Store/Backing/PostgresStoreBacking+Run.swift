import ServiceLifecycle
import Dispatch
import Stowage
import StowageLocking

/// Running and stopping: every task of the store runs inside ``run()``,
/// and ends with it; a caller's step, which runs on the caller's behalf,
/// is waited for too.
extension PostgresStoreBacking {
    /// Where a store is in its life, as ``PostgresStoreState/phase`` records it.
    enum Phase: Sendable, Equatable {
        /// `run()` has not been called: reads give what writes made, writes
        /// queue, and every wait for the database waits for `run()`.
        case notStarted
        case running
        /// A graceful shutdown began: the store commits what is queued, and reads nothing more.
        case stopping
        /// `run()` returned: writes are refused; reads give the last values the store held.
        case stopped
    }

    /// Runs the pool, the listening, the timer and the worker until a
    /// graceful shutdown, then commits what is queued, for at most the
    /// operation timeout; cancellation stops everything at once. Writes
    /// still queued when it returns are reported, and their waiters fail.
    /// - Throws: `StorageError` when the store runs already, or ran.
    func run() async throws(StorageError) {
        let phase = update { state -> Phase in
            defer { if state.phase == .notStarted { state.phase = .running } }
            return state.phase
        }
        guard phase == .notStarted else {
            throw StorageError(
                code: .storeFailure,
                reason: "\(name).run() was called while the store \(phase == .stopped ? "had stopped" : "ran already"); a store runs once.",
                storeName: name)
        }
        let client = database.client
        // Detached, so that no task-local graceful shutdown reaches them: postgres-nio's client
        // stops at once on one, and the store still needs it to commit what is queued.
        let pool = Task.detached(executorPreference: StoreExecutor.shared) { await client.run() }
        startListening()
        let timer = options.resynchronizationInterval.map { interval in
            Task.detached(executorPreference: StoreExecutor.shared) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let self else { return }
                    self.update { $0.resynchronizationRequested = true }
                    self.wake.yield()
                }
            }
        }
        let worker = Task.detached(executorPreference: StoreExecutor.shared) { await self.work() }
        let holder = Task.detached(executorPreference: StoreExecutor.shared) { await self.holdConnection() }
        let pruning = startPruning()
        let shutdownDeadline = Locked<Task<Void, Never>?>(nil)
        // Given once the worker and the pool were told to stop and had the operation timeout to do so:
        // run() then stops waiting for them, so that a server's shutdown never hangs on the store.
        let givenUp = FirstOutcome<Void>()
        let giveUpLater: @Sendable () -> Task<Void, Never> = { [options] in
            Task.detached(executorPreference: StoreExecutor.shared) {
                try? await Task.sleep(for: options.operationTimeout)
                givenUp.resolve(.success(()))
            }
        }
        var workerEnded = true
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                workerEnded = await Self.ended(worker, unlessGivenUp: givenUp)
            } onGracefulShutdown: {
                self.beginStopping()
                // Past the bound, what is still queued is given up on: the worker stops, and the pool with it.
                let timeout = self.options.operationTimeout
                shutdownDeadline.withLock {
                    $0 = Task.detached(executorPreference: StoreExecutor.shared) {
                        try? await Task.sleep(for: timeout)
                        guard !Task.isCancelled else { return }
                        worker.cancel()
                        pool.cancel()
                        _ = giveUpLater()
                    }
                }
            }
        } onCancel: {
            self.beginStopping()
            worker.cancel()
            holder.cancel()
            pool.cancel()
            _ = giveUpLater()
        }
        shutdownDeadline.withLock { $0?.cancel() }
        timer?.cancel()
        pruning?.cancel()
        pool.cancel()
        _ = giveUpLater()
        holder.cancel()
        let poolEnded = await Self.ended(pool, unlessGivenUp: givenUp)
        // The holder gave its connection back when the store began stopping, and ends once the pool has stopped.
        let holderEnded = await Self.ended(holder, unlessGivenUp: givenUp)
        // A caller's step still running (on its own task, not one of run()'s) ends by its deadline; wait for it too.
        if let stepEnded = update({ state -> PendingReply<Void>? in
            guard state.stepInProgress, state.stepEndedWaiter == nil else { return nil }
            let stepEnded = PendingReply<Void>()
            state.stepEndedWaiter = stepEnded
            return stepEnded
        }) {
            let race = FirstOutcome<Void>()
            Task.detached(executorPreference: StoreExecutor.shared) {
                _ = try? await stepEnded.value()
                race.resolve(.success(()))
            }
            Task.detached(executorPreference: StoreExecutor.shared) {
                _ = try? await givenUp.value()
                race.resolve(.success(()))
            }
            _ = try? await race.value()
        }
        // Releases the waits above that lost their race.
        givenUp.resolve(.success(()))
        if !workerEnded || !poolEnded || !holderEnded {
            let what = [
                workerEnded ? nil : "its worker", poolEnded ? nil : "its connection pool (postgres-nio's PostgresClient.run())",
                holderEnded ? nil : "the task holding its connection",
            ]
            .compactMap { $0 }.joined(separator: " and ")
            report(
                StorageError(
                    code: .storeFailure,
                    reason: "\(name).run() stopped waiting for \(what), still running \(options.operationTimeout) after being told to stop; "
                        + "run() returns without them.",
                    storeName: name))
        }
        finishStopping()
    }

    /// Waits until `task` ends, or until `givenUp` is given.
    /// - Returns: whether the task ended.
    private static func ended(_ task: Task<Void, Never>, unlessGivenUp givenUp: FirstOutcome<Void>) async -> Bool {
        let race = FirstOutcome<Bool>()
        Task.detached(executorPreference: StoreExecutor.shared) {
            await task.value
            race.resolve(.success(true))
        }
        Task.detached(executorPreference: StoreExecutor.shared) {
            _ = try? await givenUp.value()
            race.resolve(.success(false))
        }
        return (try? await race.value()) ?? false
    }

    /// Subscribes to the database's listener, or lets the first load go ahead when the store does not listen.
    private func startListening() {
        guard let listen else {
            listenerSettled.resolve(.success(()))
            return
        }
        let subscriber = ChangeListener.Subscriber(
            listening: { [weak self] in self?.listenerStartedListening() },
            lost: { [weak self] explanation, reachable in self?.listenerLost(explanation: explanation, reachable: reachable) },
            notice: { [weak self] notice in self?.received(notice) })
        let subscription = listen(subscriber)
        update { $0.subscription = subscription }
    }

    /// A graceful shutdown began (or the run was cancelled): the store stops
    /// listening and reading, and the worker commits the queue, then ends.
    func beginStopping() {
        let subscription = update { state -> ChangeListener.Subscription? in
            if state.phase == .running { state.phase = .stopping }
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
        listenerSettled.resolve(.success(()))
        firstLoadDone.resolve(.success(()))
        recallHeldConnection()
        wake.yield()
    }

    /// After the worker ended: what is still queued was not written. Its
    /// writes are reported and no longer shown; every caller still waiting
    /// is answered.
    func finishStopping() {
        let stopped = update { state in
            state.phase = .stopped
            var stopped = Stopped()
            for operation in state.queue {
                switch operation {
                case .write(let write): stopped.writes.append(write)
                case .replace(let replacement): stopped.replacements.append(replacement)
                case .reload(_, let reply): if let reply { stopped.replies.append(reply) }
                }
            }
            stopped.possiblySentThrough = state.possiblySentThrough
            state.queue.removeAll()
            state.queuedWritesPerKey.removeAll()
            state.queuedWriteCount = 0
            stopped.changed = Set(stopped.writes.map(\.key).filter { state.exposeCommittedValue(forKey: $0) })
            stopped.commitWaiters = state.commitWaiters
            stopped.replies += state.readyWaiters
            state.commitWaiters.removeAll()
            state.readyWaiters.removeAll()
            let watchers = state.statusWatchers.values
            state.statusWatchers.removeAll()
            statusDelivery.async { for watcher in watchers { watcher.finish() } }
            return stopped
        }
        announce(stopped.changed)
        update { $0.announce = nil }
        if !stopped.writes.isEmpty { report(unsavedWritesError(stopped)) }
        for replacement in stopped.replacements {
            let mayHaveBeenSent = replacement.reply.isStarted && replacement.gate.wasLeased
            let outcome = mayHaveBeenSent ? "whether it was applied is unknown" : "nothing was written"
            let keys = replacement.replacements.keys.sorted()
            replacement.reply.resolve(
                .failure(
                    StorageError(
                        code: .storeFailure, key: keys.count == 1 ? keys[0] : nil,
                        reason: "\(name) stopped before its compare and swap was answered; \(outcome).", storeName: name)))
        }
        for (through, reply) in stopped.commitWaiters { reply.resolve(.failure(unconfirmedWritesError(through: through, stopped))) }
        for reply in stopped.replies { reply.resolve(.failure(stoppedError(key: nil))) }
    }

    /// What was left when the store stopped.
    private struct Stopped {
        var writes: [State.PendingWrite] = []
        var replacements: [State.Replacement] = []
        var replies: [PendingReply<Void>] = []
        var commitWaiters: [(through: UInt64, reply: PendingReply<Void>)] = []
        var possiblySentThrough: UInt64 = 0
        var changed: Set<String> = []
    }

    /// The report of writes a stopping store could not commit: their keys,
    /// and what became of them.
    private func unsavedWritesError(_ stopped: Stopped) -> StorageError {
        let keys = Self.keys(of: stopped.writes)
        let count = stopped.writes.count
        let reason =
            "\(name) stopped with \(count) queued write\(count == 1 ? "" : "s") the database had not confirmed (\(keys.count == 1 ? "key" : "keys") \(Self.list(keys))): "
            + Self.fate(of: stopped.writes, possiblySentThrough: stopped.possiblySentThrough)
        return StorageError(code: .storeFailure, key: keys.count == 1 ? keys[0] : nil, reason: reason, storeName: name)
    }

    /// The error for a call that waited for its writes to be committed
    /// (`setAndCommit`, `commitPendingWrites()`) when the store stopped.
    private func unconfirmedWritesError(through: UInt64, _ stopped: Stopped) -> StorageError {
        let unconfirmed = stopped.writes.filter { $0.number <= through }
        let keys = Self.keys(of: unconfirmed)
        var reason = "\(name) stopped (its run() returned, after a graceful shutdown or a cancellation) before the writes this call waited for were confirmed"
        if !unconfirmed.isEmpty {
            reason +=
                " (\(keys.count == 1 ? "key" : "keys") \(Self.list(keys))): " + Self.fate(of: unconfirmed, possiblySentThrough: stopped.possiblySentThrough)
        } else {
            reason += "."
        }
        return StorageError(code: .storeFailure, key: keys.count == 1 ? keys[0] : nil, reason: reason, storeName: name)
    }

    /// What became of writes the database did not confirm: not saved,
    /// unless a statement for their key went out and its commit was never
    /// confirmed (no answer came, or an error that does not prove a rollback,
    /// such as a statement timeout), when a value written for it (that one,
    /// or an earlier one) may have been committed.
    private static func fate(of writes: [State.PendingWrite], possiblySentThrough: UInt64) -> String {
        let keys = keys(of: writes)
        let sent = Set(writes.filter { $0.number <= possiblySentThrough }.map(\.key))
        guard !sent.isEmpty else { return "\(writes.count == 1 ? "it was" : "they were") not saved by this store." }
        let sentKeys = keys.filter(sent.contains)
        let one = sentKeys.count == 1
        return "a statement for \(list(sentKeys)) was sent and its commit was never confirmed, "
            + "so a value written for \(one ? "it" : "them") may have been committed "
            + "(read \(one ? "it" : "them") again to know)"
            + (sentKeys.count == keys.count ? "." : "; the others were not saved by this store.")
    }

    /// The keys of `writes`, each once, in the order of their first write.
    private static func keys(of writes: [State.PendingWrite]) -> [String] {
        var keys: [String] = []
        for write in writes where !keys.contains(write.key) { keys.append(write.key) }
        return keys
    }

    /// Up to ten keys, and how many more.
    private static func list(_ keys: [String]) -> String {
        keys.prefix(10).joined(separator: ", ") + (keys.count > 10 ? " and \(keys.count - 10) more" : "")
    }

    /// The error for a request made of a store that has stopped.
    func stoppedError(key: String?) -> StorageError {
        StorageError(
            code: .storeFailure, key: key,
            reason:
                "\(name) has stopped (its run() returned, after a graceful shutdown or a cancellation): it no longer reaches the database, and nothing was written.",
            storeName: name)
    }
}
