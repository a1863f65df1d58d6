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
        let refusal = update { state -> Refusal? in
            guard state.phase != .stopped else { return .stopped }
            guard state.queuedWriteCount < maximum else { return .full }
            let write = State.PendingWrite(number: state.nextWriteNumber, key: key, value: value, text: text, author: author)
            state.nextWriteNumber += 1
            state.queue.append(.write(write))
            state.queuedWritesPerKey[key, default: 0] += 1
            state.queuedWriteCount += 1
            state.visible[key] = value
            return nil
        }
        switch refusal {
        case nil: wake.yield()
        case .stopped: throw stoppedError(key: key)
        case .full:
            throw StorageError(
                code: .storeFailure, key: key,
                reason: "\(name) has \(maximum) writes queued that the database has not taken yet, the most "
                    + "Options.maximumQueuedWrites allows; this one was refused and not saved. The queued writes are kept and tried again.",
                storeName: name)
        }
    }

    /// Waits until every write queued before the call is committed.
    func commitQueuedWrites() async throws(StorageError) {
        let reply = PendingReply<Void>()
        let waiting = update { state -> Bool? in
            guard state.phase != .stopped else { return nil }
            let through = state.nextWriteNumber - 1
            guard through > state.settledThrough else { return false }
            state.commitWaiters.append((through, reply))
            return true
        }
        guard let waiting else { throw stoppedError(key: nil) }
        guard waiting else { return }
        try await reply.value(within: options.operationTimeout) { [self] _ in
            let queued = state.withLock { $0.queuedWriteCount }
            return unreachableError(
                key: nil,
                doing: "could not commit \(queued) queued write\(queued == 1 ? "" : "s"); they stay queued and are tried again until the database takes them")
        }
    }

    /// Commits a run of writes in one statement, the last write of each key winning.
    func commit(_ writes: [State.PendingWrite]) async {
        var latest: [String: State.PendingWrite] = [:]
        for write in writes { latest[write.key] = write }
        let batch = latest.values.map { (key: $0.key, text: $0.text, author: $0.author) }
        var delay = options.initialRetryDelay
        var failedAttempts = 0
        update { $0.writesInFlight = writes[0].number...writes[writes.count - 1].number }
        defer { update { $0.writesInFlight = nil } }
        while !Task.isCancelled {
            do {
                let database = database
                let revisions = try await database.withConnection(within: options.operationTimeout) { try await database.write(batch, on: $0) }
                let waiters = update { state in
                    for (key, write) in latest {
                        if let revision = revisions[PostgresDatabase.databaseKey(key)] {
                            state.committed[key] = .init(value: write.value, revision: revision)
                        }
                    }
                    finish(writes, in: &state)
                    state.connection = .connected
                    state.lastError = nil
                    return state.settle(through: writes[writes.count - 1].number)
                }
                for waiter in waiters { waiter.resolve(.success(())) }
                if failedAttempts > 0 { reportCommittedAfterRetries(keys: latest.keys.sorted(), failedAttempts: failedAttempts) }
                return
            } catch  where DatabaseFailure.isTransient(error) {
                guard !Task.isCancelled else { return }
                failedAttempts += 1
                noteFailure(error, doing: "could not commit \(latest.count) key\(latest.count == 1 ? "" : "s"); they stay queued")
                await pause(&delay)
            } catch  where latest.count > 1 {
                // One bad key makes the database refuse the whole statement: commit key by key, so only it is refused.
                await commitOneByOne(writes, latest: latest)
                return
            } catch {
                refuse(writes, keys: latest.keys.sorted(), error: error)
                return
            }
        }
    }

    /// Commits a batch the database refused as a whole one key at a time,
    /// refusing only the keys it refuses on their own.
    private func commitOneByOne(_ writes: [State.PendingWrite], latest: [String: State.PendingWrite]) async {
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
                    let revisions = try await database.withConnection(within: options.operationTimeout) {
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
        refuse(writes, keys: refused.map(\.key), error: firstRefusal.error)
    }

    /// Takes committed or refused writes off the queue.
    private func finish(_ writes: [State.PendingWrite], in state: inout State) {
        state.queue.removeFirst(writes.count)
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
    private func refuse(_ writes: [State.PendingWrite], keys: [String], error: any Error) {
        let failure = StorageError(
            code: .storeFailure, key: keys.count == 1 ? keys[0] : nil,
            reason: "\(name) could not save \(keys.count == 1 ? "its value" : "keys \(keys.joined(separator: ", "))"): "
                + "\(database.explanation(of: error)). The value\(keys.count == 1 ? " was" : "s were") not saved; reads show what the database holds.",
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
