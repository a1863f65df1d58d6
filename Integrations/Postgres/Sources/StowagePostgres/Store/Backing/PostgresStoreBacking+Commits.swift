import NIOCore
import PostgresNIO
import Stowage
import StowageHistory
import StowageLocking

/// Queued writes: a setter queues its write and shows it to reads at once;
/// the worker commits a run of them in one statement, in order, and tries
/// again while the database is unreachable.
extension PostgresStoreBacking {
    /// Queues a write and shows it to reads at once.
    /// - Throws: `StorageError` when ``PostgresStore/Options/maximumQueuedWrites``
    ///   writes are queued already, or the store has stopped; the write is
    ///   then neither queued nor shown.
    func enqueueWrite(key: String, value: StoredValue?, text: String?) throws(StorageError) {
        let maximum = options.maximumQueuedWrites
        let author = ChangeAuthor.name ?? options.author
        enum Refusal { case full, stopped }
        enum Wake { case now, soon(any EventLoop), alreadyDue }
        let (refusal, wakeWorker) = update { state -> (Refusal?, Wake) in
            guard state.phase != .stopped else { return (.stopped, .alreadyDue) }
            guard state.queuedWriteCount < maximum else { return (.full, .alreadyDue) }
            let write = State.PendingWrite(number: state.nextWriteNumber, key: key, value: value, text: text, author: author)
            state.nextWriteNumber += 1
            state.queue.append(.write(write))
            state.queuedWritesPerKey[key, default: 0] += 1
            state.queuedWriteCount += 1
            state.visible[key] = value
            // A setter that commits next (setAndCommit) sends the statement itself; the worker waits for it a moment.
            guard mayTakeStepsOnCallersThreads(state) else { return (nil, .now) }
            guard !state.workerWakeScheduled else { return (nil, .alreadyDue) }
            state.workerWakeScheduled = true
            return (nil, .soon(state.heldConnection?.eventLoop ?? PostgresClient.defaultEventLoopGroup.any()))
        }
        switch refusal {
        case nil:
            switch wakeWorker {
            case .now: wake.yield()
            case .soon(let eventLoop):
                eventLoop.scheduleTask(in: Self.writeBehindDelay) { [weak self] in self?.wakeWorkerForWrites() }
            case .alreadyDue: break
            }
        case .stopped: throw stoppedError(key: key)
        case .full:
            throw StorageError(
                code: .storeFailure, key: key,
                reason: "\(name) has \(maximum) writes queued that the database has not taken yet, the most "
                    + "Options.maximumQueuedWrites allows; this one was refused and not saved. The queued writes are kept and tried again.",
                storeName: name)
        }
    }

    /// How long a queued write waits for its setter to commit it on its own
    /// thread (``startCommitOnCallersThread(through:by:)``) before the worker takes it:
    /// long enough that a `setAndCommit` finds it queued but on a very busy
    /// machine, short beside a commit's round trip.
    static var writeBehindDelay: TimeAmount { .milliseconds(1) }

    /// The worker's scheduled wake: it takes the writes no caller committed.
    private func wakeWorkerForWrites() {
        let hasWrites = update { state in
            state.workerWakeScheduled = false
            return !state.queue.isEmpty
        }
        if hasWrites { wake.yield() }
    }

    /// What a commit waits for: every write queued before the call, for at
    /// most the operation timeout from the call.
    func commitTarget() -> (through: UInt64, deadline: ContinuousClock.Instant) {
        (state.withLock { $0.nextWriteNumber - 1 }, .now + options.operationTimeout)
    }

    /// Waits until every write queued before the call is committed, for at
    /// most the operation timeout: commits them itself where it can, else
    /// waits for the worker. It waits as a commit waiter from the start, so
    /// whoever settles its writes, it or the worker, answers it, and a write
    /// refused between its own try and the worker's fails it.
    func commitQueuedWrites() async throws(StorageError) {
        let (through, deadline) = commitTarget()
        let reply = PendingReply<Void>()
        let waiting = update { state -> Bool? in
            guard state.phase != .stopped else { return nil }
            guard through > state.settledThrough else { return false }
            state.commitWaiters.append((through, reply))
            return true
        }
        guard let waiting else { throw stoppedError(key: nil) }
        guard waiting else { return }
        if let started = startCommitOnCallersThread(through: through, by: deadline) { _ = try? await started.value() }
        if reply.isResolved { return try await reply.value() }
        wake.yield()
        try await reply.value(by: deadline) { [self] _ in
            let (queued, stopping) = state.withLock { ($0.queuedWriteCount, $0.phase == .stopping) }
            // A stopping store tries them only until it stops, and then reports what it could not commit.
            let fate =
                stopping ? "the store is stopping, and reports those it can not commit" : "they stay queued and are tried again until the database takes them"
            return unreachableError(key: nil, doing: "could not commit \(queued) queued write\(queued == 1 ? "" : "s"); \(fate)")
        }
    }

    /// Commits a run of writes in one statement, the last write of each key
    /// winning, trying again while the database is unreachable. A caller's
    /// own try (`callersDeadline` given) sends it once, by that deadline,
    /// and on any failure leaves the writes queued for the worker.
    /// - Returns: whether the writes were committed, or (by the worker)
    ///   refused and reported.
    @discardableResult
    func commit(_ writes: [State.PendingWrite], callersDeadline: ContinuousClock.Instant? = nil) async -> Bool {
        var latest: [String: State.PendingWrite] = [:]
        for write in writes { latest[write.key] = write }
        let batch = latest.values.map { (key: $0.key, text: $0.text, author: $0.author) }
        var delay = options.initialRetryDelay
        while !Task.isCancelled {
            let sentBefore = markPossiblySent(through: writes[writes.count - 1].number)
            do {
                let database = database
                // A caller's own try runs on its thread, by its deadline; the worker's on its executor, within the timeout.
                let timeout = callersDeadline.map { $0 - .now } ?? options.operationTimeout
                let executor: any TaskExecutor = callersDeadline == nil ? StoreExecutor.shared : ImmediateExecutor.shared
                let revisions: [String: Int64]
                do {
                    revisions = try await withStepConnection(within: timeout, on: executor) { try await database.write(batch, on: $0) }
                } catch {
                    // A statement never sent, or rolled back by the server's own word, committed
                    // nothing: it takes its mark back. Writes of several authors go in one
                    // statement each, and an earlier one may have committed before a later failed.
                    if !DatabaseFailure.mayHaveCommitted(error), Set(batch.map(\.author)).count == 1 {
                        update { $0.possiblySentThrough = sentBefore }
                    }
                    throw error
                }
                let (waiters, failedAttempts) = update { state in
                    let failedAttempts = state.failedCommitAttempts
                    for (key, write) in latest {
                        if let revision = revisions[PostgresDatabase.databaseKey(key)] {
                            state.committed[key] = .init(value: write.value, revision: revision)
                        }
                    }
                    finish(writes, in: &state)
                    state.connection = .connected
                    state.lastError = nil
                    return (state.settle(through: writes[writes.count - 1].number), failedAttempts)
                }
                for waiter in waiters { waiter.resolve(.success(())) }
                // Whoever lands them, the worker or a caller, says they landed after failed tries.
                if failedAttempts > 0 { reportCommittedAfterRetries(keys: latest.keys.sorted(), failedAttempts: failedAttempts) }
                return true
            } catch  where callersDeadline != nil {
                // The worker sends them again, and says what failed if it fails again.
                if DatabaseFailure.isTransient(error) { update { $0.failedCommitAttempts += 1 } }
                return false
            } catch  where DatabaseFailure.isTransient(error) {
                guard !Task.isCancelled else { return false }
                update { $0.failedCommitAttempts += 1 }
                noteFailure(error, doing: "could not commit \(latest.count) key\(latest.count == 1 ? "" : "s"); they stay queued")
                await pause(&delay)
            } catch  where latest.count > 1 {
                // One bad key makes the database refuse the whole statement: commit key by key, so only it is refused.
                await commitOneByOne(writes, latest: latest, sentBefore: sentBefore)
                return true
            } catch {
                refuse(writes, keys: latest.keys.sorted(), error: error, sentBefore: sentBefore)
                return true
            }
        }
        return false
    }

    /// Marks the writes up to `number` as possibly sent, before their statement goes.
    /// - Returns: the mark before, for a statement that turns out never sent to restore.
    private func markPossiblySent(through number: UInt64) -> UInt64 {
        update { state in
            defer { state.possiblySentThrough = max(state.possiblySentThrough, number) }
            return state.possiblySentThrough
        }
    }

    /// Commits a batch the database refused as a whole one key at a time,
    /// refusing only the keys it refuses on their own.
    private func commitOneByOne(_ writes: [State.PendingWrite], latest: [String: State.PendingWrite], sentBefore: UInt64) async {
        var refused: [(key: String, error: any Error)] = []
        var committed: [String: Int64] = [:]
        for (key, write) in latest.sorted(by: { $0.key < $1.key }) {
            var delay = options.initialRetryDelay
            var failedAttempts = 0
            while true {
                // Cancelled: the store stops at once, and reports the whole batch as not confirmed.
                guard !Task.isCancelled else { return }
                do {
                    let database = database
                    let revisions = try await withStepConnection(within: options.operationTimeout) {
                        try await database.write([(key: key, text: write.text, author: write.author)], on: $0)
                    }
                    if let revision = revisions[PostgresDatabase.databaseKey(key)] { committed[key] = revision }
                    if failedAttempts > 0 { reportCommittedAfterRetries(keys: [key], failedAttempts: failedAttempts) }
                    break
                } catch  where DatabaseFailure.isTransient(error) {
                    failedAttempts += 1
                    noteFailure(error, doing: "could not commit \(key)")
                    await pause(&delay)
                } catch {
                    refused.append((key, error))
                    break
                }
            }
        }
        update { state in
            for (key, revision) in committed {
                if let write = latest[key] { state.committed[key] = .init(value: write.value, revision: revision) }
            }
        }
        guard let firstRefusal = refused.first else {
            let waiters = update { state in
                finish(writes, in: &state)
                return state.settle(through: writes[writes.count - 1].number)
            }
            for waiter in waiters { waiter.resolve(.success(())) }
            return
        }
        refuse(writes, keys: refused.map(\.key), error: firstRefusal.error, sentBefore: sentBefore)
    }

    /// Takes committed or refused writes off the queue.
    private func finish(_ writes: [State.PendingWrite], in state: inout State) {
        // A store that stopped under this step accounted for its writes already.
        guard state.phase != .stopped else { return }
        state.removeFront(writes.count)
        state.failedCommitAttempts = 0
        for write in writes {
            let left = state.queuedWritesPerKey[write.key, default: 1] - 1
            state.queuedWritesPerKey[write.key] = left > 0 ? left : nil
            state.queuedWriteCount -= 1
        }
        state.settleNotices(forKeys: writes.map(\.key))
    }

    /// Drops writes the database refused for good (not for want of a
    /// connection): reports them, shows the values it holds again, and
    /// fails the commits that waited for them.
    /// `sentBefore`: the mark of possibly sent writes before the try the
    /// database refused; a refused write under it may have been saved by an earlier try.
    private func refuse(_ writes: [State.PendingWrite], keys: [String], error: any Error, sentBefore: UInt64) {
        let one = keys.count == 1
        let triedBefore = writes.contains { keys.contains($0.key) && $0.number <= sentBefore }
        let fate =
            triedBefore
            ? "The database refused \(one ? "it" : "them") this time, but an earlier try was sent, was never confirmed and may have saved \(one ? "it" : "them")"
            : "The value\(one ? " was" : "s were") not saved"
        let failure = StorageError(
            code: .storeFailure, key: one ? keys[0] : nil,
            reason: "\(name) could not save \(one ? "its value" : "keys \(keys.joined(separator: ", "))"): "
                + "\(database.explanation(of: error)). \(fate); reads show what the database holds.",
            underlyingError: DatabaseFailure.reportable(error))
        report(failure)
        let refusedNumbers = writes.filter { keys.contains($0.key) }.map(\.number)
        let (changed, waiters) = update { state in
            finish(writes, in: &state)
            state.lastError = failure
            let changed = Set(keys.filter { state.exposeCommittedValue(forKey: $0) })
            state.queue.insert(.reload(keys: Set(keys), reply: nil), at: 0)
            return (changed, state.settled(through: writes[writes.count - 1].number, failingFrom: refusedNumbers.min()))
        }
        announce(changed)
        for waiter in waiters.succeeded { waiter.resolve(.success(())) }
        for waiter in waiters.failed { waiter.resolve(.failure(failure)) }
    }
}
