import Dispatch
import PostgresNIO
import Stowage
import StowageJSON

/// The part of a store that outlives its last user until its queued writes
/// are committed: the cache, the queue, and the worker that serves it.
///
/// One worker task per store, on ``StoreExecutor``, takes the queue's front
/// in order: a run of writes becomes one statement; a compare-and-swap or a
/// reload runs alone. While the database is unreachable the worker tries
/// again with growing delays and keeps everything queued.
final class PostgresStoreBacking: Sendable {
    typealias State = PostgresStoreState

    let database: PostgresDatabase
    let options: PostgresStore.Options
    /// The store as messages name it, without credentials.
    let name: String
    let state = Locked(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Tells the store's references and observers; set once the store exists.
    private let announcer = Locked<(@Sendable (Set<String>) -> Void)?>(nil)
    /// Announcements run here, never on the executor, so an observer may call the store's blocking API.
    private let announcements = DispatchQueue(label: "Stowage PostgreSQL announcements")
    private let clientTask = Locked<Task<Void, Never>?>(nil)
    /// The store's place among the listeners of its database, until it closes.
    private let subscription = Locked<ChangeListener.Subscription?>(nil)
    /// Resolved by the listener's first word, so the first load comes after `LISTEN` where it can.
    private let listenerSettled = PendingReply<Void>()
    private let resynchronizer = Locked<Task<Void, Never>?>(nil)
    /// Status changes reach their watchers from here, in the order they happened.
    private let statusDelivery = DispatchQueue(label: "Stowage PostgreSQL status")

    init(database: PostgresDatabase, options: PostgresStore.Options, name: String) {
        self.database = database
        self.options = options
        self.name = name
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts the connection pool, the listener and the worker; `announce` tells the store's observers.
    func start(
        listeningWith listen: ((ChangeListener.Subscriber) -> ChangeListener.Subscription)?, announcingWith announce: @escaping @Sendable (Set<String>) -> Void
    ) {
        announcer.withLock { $0 = announce }
        database.attempts.onFailure { [weak self] explanation in
            self?.noteFailure(reason: "could not connect to the database: \(explanation)")
        }
        let client = database.client
        clientTask.withLock { $0 = Task(executorPreference: StoreExecutor.shared) { await client.run() } }
        if let listen {
            let subscriber = ChangeListener.Subscriber(
                listening: { [weak self] in self?.listenerStartedListening() },
                lost: { [weak self] explanation, reachable in self?.listenerLost(explanation: explanation, reachable: reachable) },
                notice: { [weak self] notice in self?.received(notice) })
            subscription.withLock { $0 = listen(subscriber) }
        } else {
            listenerSettled.resolve(.success(()))
        }
        if let interval = options.resynchronizationInterval {
            resynchronizer.withLock {
                $0 = Task(executorPreference: StoreExecutor.shared) { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard !Task.isCancelled, let self else { return }
                        self.update { $0.resynchronizationRequested = true }
                        self.wake.yield()
                    }
                }
            }
        }
        Task(executorPreference: StoreExecutor.shared) { await self.work() }
    }

    /// Lets the worker finish what is queued, then stop, with the pool.
    func close() {
        update { state in
            state.isClosing = true
            let watchers = state.statusWatchers.values
            state.statusWatchers.removeAll()
            statusDelivery.async { for watcher in watchers { watcher.finish() } }
        }
        announcer.withLock { $0 = nil }
        subscription.withLock { $0?.cancel() }
        resynchronizer.withLock { $0?.cancel() }
        listenerSettled.resolve(.success(()))
        wake.yield()
    }

    /// Runs `body` on the state under its lock, and tells the status's
    /// watchers when it changed: queued under the lock, so in order, and
    /// yielded after it, from the status queue.
    @discardableResult
    func update<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, endsOutage) = state.withLock { state in
            let before = state.status
            let result = body(&state)
            let after = state.status
            if after != before, !state.statusWatchers.isEmpty {
                let watchers = Array(state.statusWatchers.values)
                statusDelivery.async { for watcher in watchers { watcher.yield(after) } }
            }
            // Any exchange that succeeds during a reported outage asks for the
            // full read that ends it, and its `resynchronized` event.
            let endsOutage = state.connection == .connected && state.disconnectedSince != nil && !state.resynchronizationRequested
            if endsOutage { state.resynchronizationRequested = true }
            return (result, endsOutage)
        }
        if endsOutage { wake.yield() }
        return result
    }

    /// The current status, then each change, until the store closes.
    func statusUpdates() -> AsyncStream<PostgresStore.Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: PostgresStore.Status.self)
        let id = update { state in
            state.nextWatcherID += 1
            let (status, isClosing) = (state.status, state.isClosing)
            if !isClosing { state.statusWatchers[state.nextWatcherID] = continuation }
            statusDelivery.async {
                continuation.yield(status)
                if isClosing { continuation.finish() }
            }
            return state.nextWatcherID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.statusWatchers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: The listener's news

    /// `LISTEN` is in place: changes from now on will be told, so what was
    /// missed before is read once, in full, unless the first load is still to come.
    private func listenerStartedListening() {
        let wakeWorker = update { state -> Bool in
            state.isListening = true
            state.listenGeneration += 1
            if state.connection == .unreachable, state.isReady {
                state.connection = .connected
                state.lastError = nil
            }
            guard state.hasStartedLoading else { return false }
            state.resynchronizationRequested = true
            return true
        }
        listenerSettled.resolve(.success(()))
        if wakeWorker { wake.yield() }
    }

    /// The listening connection is gone: changes may be missed from now until it is back and a full read is done.
    private func listenerLost(explanation: String, reachable: Bool) {
        update { state in
            if state.receivesChanges { state.currentAsOf = .now }
            state.isListening = false
            state.receivesChanges = false
        }
        if !reachable { noteFailure(reason: explanation) }
        listenerSettled.resolve(.success(()))
    }

    /// A change was made: reads the key (or the namespace) before the worker's next step, unless the store holds it already.
    private func received(_ notice: ChangeNotice) {
        guard notice.concerns(namespace: database.namespace) else { return }
        let wakeWorker = update { state -> Bool in
            // The first load, not begun yet, will read it.
            guard state.hasStartedLoading else { return false }
            switch notice {
            case .row(_, let key, let revision, let deleted):
                // The store's own writes come back as notices; it holds their revision already,
                // or will once the write queued for the key is committed.
                if !deleted, let held = state.committed[key]?.revision, held >= revision { return false }
                if state.isWriting(key) {
                    state.noticesDuringWrites[key] = max(state.noticesDuringWrites[key] ?? 0, deleted ? .max : revision)
                    return false
                }
                state.keysToRefresh.insert(key)
            case .namespace, .everything:
                state.resynchronizationRequested = true
            }
            return true
        }
        if wakeWorker { wake.yield() }
    }

    // MARK: Requests from the store

    /// Queues a write and shows it to reads at once.
    /// - Throws: `StorageError` when ``PostgresStore/Options/maximumQueuedWrites``
    ///   writes are queued already; the write is then neither queued nor shown.
    func enqueueWrite(key: String, value: StoredValue?, text: String?) throws(StorageError) {
        let maximum = options.maximumQueuedWrites
        let queued = update { state -> Bool in
            guard state.queuedWriteCount < maximum else { return false }
            let write = State.PendingWrite(number: state.nextWriteNumber, key: key, value: value, text: text)
            state.nextWriteNumber += 1
            state.queue.append(.write(write))
            state.queuedWritesPerKey[key, default: 0] += 1
            state.queuedWriteCount += 1
            state.visible[key] = value
            return true
        }
        guard queued else {
            throw StorageError(
                code: .storeFailure, key: key,
                reason: "\(name) has \(maximum) writes queued that the database has not taken yet, the most "
                    + "Options.maximumQueuedWrites allows; this one was refused and not saved. The queued writes are kept and tried again.",
                storeName: name)
        }
        wake.yield()
    }

    /// Queues a compare-and-swap and waits for the worker's answer, for the
    /// operation timeout from this call, all told: the worker gives the
    /// statement what is left of it. A request the worker has not started by
    /// then is skipped, and one that got no connection by then never sends
    /// its statement (the deadline closes its gate): the error says nothing
    /// was written. One whose statement may have reached the database says
    /// the outcome is unknown.
    func replace(expected: [String: StoredValue?], replacements: [String: (value: StoredValue?, text: String?)]) async throws(StorageError) -> Bool {
        let reply = PendingReply<Bool>()
        let deadline = ContinuousClock.now + options.operationTimeout
        let gate = StatementGate()
        update { $0.queue.append(.replace(.init(expected: expected, replacements: replacements, reply: reply, deadline: deadline, gate: gate))) }
        wake.yield()
        let keys = replacements.keys.sorted()
        return try await reply.value(by: deadline, gate: gate) { [self] mayHaveBeenSent in
            let what = keys.count == 1 ? "its value" : "keys \(keys.joined(separator: ", "))"
            return mayHaveBeenSent
                ? unreachableError(
                    key: keys.first,
                    doing:
                        "got no answer to the compare and swap of \(what); whether it was applied is unknown until the store reads it again, which it does next"
                )
                : unreachableError(key: keys.first, doing: "could not compare and swap \(what); nothing was written")
        }
    }

    /// Waits until every write queued before the call is committed.
    func commitQueuedWrites() async throws(StorageError) {
        let reply = PendingReply<Void>()
        let waiting = update { state -> Bool in
            let through = state.nextWriteNumber - 1
            guard through > state.settledThrough else { return false }
            state.commitWaiters.append((through, reply))
            return true
        }
        guard waiting else { return }
        try await reply.value(within: options.operationTimeout) { [self] _ in
            let queued = state.withLock { $0.queuedWriteCount }
            return unreachableError(
                key: nil,
                doing: "could not commit \(queued) queued write\(queued == 1 ? "" : "s"); they stay queued and are tried again until the database takes them")
        }
    }

    /// Waits until the first load is done.
    func ready(timeout: Duration) async throws(StorageError) {
        let reply = PendingReply<Void>()
        let isReady = update { state -> Bool in
            if state.isReady { return true }
            state.readyWaiters.append(reply)
            return false
        }
        guard !isReady else { return }
        try await reply.value(within: timeout) { [self] _ in
            unreachableError(key: nil, doing: "is not ready after \(timeout): its first load has not finished")
        }
    }

    /// Reads the whole namespace again and announces what changed.
    func reload() async throws(StorageError) {
        let reply = PendingReply<Void>()
        update { $0.queue.append(.reload(keys: nil, reply: reply)) }
        wake.yield()
        try await reply.value(within: options.operationTimeout) { [self] _ in
            unreachableError(key: nil, doing: "could not reload")
        }
    }

    /// An error for a caller whose wait ran out, with the last failure's explanation.
    private func unreachableError(key: String?, doing what: String) -> StorageError {
        let last = state.withLock { $0.lastError }
        let cause =
            last.map { ": \($0.reason)" }
            ?? database.attempts.lastFailureExplanation.map { ": \($0)" }
            ?? ": the database did not answer in time"
        return StorageError(code: .timedOut, key: key, reason: "\(name) \(what)\(cause)", underlyingError: last)
    }

    // MARK: The worker

    private enum Step {
        case writes([State.PendingWrite])
        case replace(State.Replacement)
        case reload(keys: Set<String>?, reply: PendingReply<Void>?)
        /// Not in the queue: a full read after `LISTEN` or on the timer.
        case resynchronize
        /// Not in the queue: the keys notices named.
        case refresh(Set<String>)
    }

    private func work() async {
        // Listen first, then load, so no change falls between the two; a listener that can not connect does not hold the store up.
        _ = try? await listenerSettled.value(within: options.operationTimeout) { _ in StorageError(code: .timedOut, reason: "") }
        await loadUntilReady()
        for await _ in wakeups {
            while let step = nextStep() { await perform(step) }
            if state.withLock({ $0.isClosing && $0.queue.isEmpty }) { break }
        }
        clientTask.withLock { $0?.cancel() }
    }

    /// The front of the queue: every write up to the batch size, or one other request.
    private func nextStep() -> Step? {
        update { state -> Step? in
            if state.isClosing {
                // A closing store only commits what is queued.
                state.resynchronizationRequested = false
                state.keysToRefresh.removeAll()
            }
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
            case .write:
                var writes: [State.PendingWrite] = []
                for operation in state.queue.prefix(options.maximumBatchSize) {
                    guard case .write(let write) = operation else { break }
                    writes.append(write)
                }
                return .writes(writes)
            }
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

    /// Reads the whole namespace and announces what changed, removals
    /// included; once it began after the latest `LISTEN`, the cache receives every change.
    private func resynchronize() async {
        let (generation, startedAt) = update { ($0.listenGeneration, ContinuousClock.now) }
        do {
            let database = database
            let loaded = try await database.withConnection(within: options.operationTimeout) { try await database.loadNamespace(on: $0) }
            let changed = absorb(loaded, keys: nil)
            let outage = update { state in
                state.currentAsOf = startedAt
                state.receivesChanges = state.receivesChanges(afterReadAt: generation)
                state.connection = .connected
                state.lastError = nil
                state.readRetryDelay = nil
                state.readsPausedUntil = nil
                return state.endDisconnection()
            }
            announce(changed)
            reportResynchronized(after: outage, changedKeys: changed.count)
        } catch {
            update { $0.resynchronizationRequested = true }
            readFailed(error, doing: "could not read its values again")
        }
    }

    /// Reads the keys notices named and applies each row newer than the one held.
    private func refresh(_ keys: Set<String>) async {
        do {
            let database = database
            let loaded = try await database.withConnection(within: options.operationTimeout) { try await database.load(keys: keys, on: $0) }
            for problem in loaded.unreadable { report(problem) }
            let unreadable = Set(loaded.unreadable.compactMap(\.key))
            let changed = update { state in
                var rows: [String: State.CommittedEntry?] = loaded.rows.mapValues { Optional($0) }
                for key in keys where loaded.rows[key] == nil && !unreadable.contains(key) { rows[key] = .some(nil) }
                state.connection = .connected
                state.readRetryDelay = nil
                state.readsPausedUntil = nil
                return state.absorbNewer(rows)
            }
            announce(changed)
        } catch {
            // A change went unread: until a full read succeeds, the cache may miss it.
            update { state in
                state.resynchronizationRequested = true
                if state.receivesChanges { state.currentAsOf = .now }
                state.receivesChanges = false
            }
            readFailed(error, doing: "could not read changed keys")
        }
    }

    /// Pauses reads after a failure, with a delay that grows as in
    /// ``pause(_:)``; queued writes run meanwhile, and the worker wakes when
    /// the pause is over.
    private func readFailed(_ error: any Error, doing what: String) {
        let delay = update { state -> Duration in
            let delay = state.readRetryDelay ?? options.initialRetryDelay
            state.readRetryDelay = min(delay * 2, options.maximumRetryDelay)
            let jittered = delay + delay * Double.random(in: 0...0.25)
            state.readsPausedUntil = .now + jittered
            return jittered
        }
        noteFailure(error, doing: what)
        Task(executorPreference: StoreExecutor.shared) { [weak self] in
            try? await Task.sleep(for: delay)
            self?.wake.yield()
        }
    }

    /// Creates the tables if need be and loads the namespace, trying again until it works.
    private func loadUntilReady() async {
        var delay = options.initialRetryDelay
        while !state.withLock({ $0.isClosing }) {
            let (generation, startedAt) = update { state in
                state.hasStartedLoading = true
                return (state.listenGeneration, ContinuousClock.now)
            }
            do {
                let database = database
                let (withoutNotifications, loaded) = try await database.withConnection(within: options.operationTimeout) { connection in
                    (try await database.prepareTables(on: connection), try await database.loadNamespace(on: connection))
                }
                if let withoutNotifications { report(withoutNotifications) }
                for problem in loaded.unreadable { report(problem) }
                let (changed, waiters, outage) = update { state in
                    if withoutNotifications != nil { state.tablesNotify = false }
                    let changed = state.absorb(loaded.rows.mapValues { Optional($0) })
                    state.isReady = true
                    state.connection = .connected
                    state.currentAsOf = startedAt
                    // A `LISTEN` put in place during the load asked for another full read; one in place before it makes this one enough.
                    state.receivesChanges = state.receivesChanges(afterReadAt: generation)
                    state.lastError = nil
                    defer { state.readyWaiters.removeAll() }
                    return (changed, state.readyWaiters, state.endDisconnection())
                }
                announce(changed)
                reportResynchronized(after: outage, changedKeys: changed.count)
                for waiter in waiters { waiter.resolve(.success(())) }
                return
            } catch {
                noteFailure(error, doing: "could not load its values")
                await pause(&delay)
            }
        }
    }

    /// Commits a run of writes in one statement, the last write of each key winning.
    private func commit(_ writes: [State.PendingWrite]) async {
        var latest: [String: State.PendingWrite] = [:]
        for write in writes { latest[write.key] = write }
        let batch = latest.values.map { (key: $0.key, text: $0.text) }
        var delay = options.initialRetryDelay
        var failedAttempts = 0
        while true {
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
                do {
                    let database = database
                    let revisions = try await database.withConnection(within: options.operationTimeout) {
                        try await database.write([(key: key, text: write.text)], on: $0)
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

    /// Runs a compare-and-swap against the rows' revisions; when a row had
    /// moved on, reads the keys again so the next try starts from their values.
    private func perform(_ replacement: State.Replacement) async {
        guard replacement.reply.start() else {
            update { _ = $0.queue.removeFirst() }
            return
        }
        let plan = update { state -> [(key: String, text: String?, expectedRevision: Int64)]? in
            for (key, value) in replacement.expected where state.committedValue(forKey: key) != value { return nil }
            var items = replacement.replacements.map { key, new in (key: key, text: new.text, expectedRevision: state.committed[key]?.revision ?? 0) }
            // A key that must hold a value but is not replaced is written back as it is, at its revision, so the check covers it.
            for (key, value) in replacement.expected where replacement.replacements[key] == nil {
                let text = try? value?.jsonText()
                items.append((key: key, text: text, expectedRevision: state.committed[key]?.revision ?? 0))
            }
            return items
        }
        guard let plan else {
            update { _ = $0.queue.removeFirst() }
            replacement.reply.resolve(.success(false))
            return
        }
        let keys = Set(plan.map(\.key))
        // Its own notices come back before its answer: they wait for the answer, as for queued writes.
        update { $0.keysBeingReplaced.formUnion(keys) }
        defer {
            update { state in
                state.keysBeingReplaced.subtract(keys)
                state.settleNotices(forKeys: keys)
            }
            wake.yield()
        }
        do {
            let database = database
            let revisions = try await database.withConnection(within: replacement.deadline - .now, gate: replacement.gate) {
                try await database.replace(plan, on: $0)
            }
            if let revisions {
                let changed = update { state in
                    var changed: Set<String> = []
                    for (key, new) in replacement.replacements {
                        if let revision = revisions[key] { state.committed[key] = .init(value: new.value, revision: revision) }
                        if state.exposeCommittedValue(forKey: key) { changed.insert(key) }
                    }
                    _ = state.queue.removeFirst()
                    state.connection = .connected
                    return changed
                }
                // When the caller already gave up waiting, Stowage will not tell the key's references: the store does.
                if !replacement.reply.resolve(.success(true)) { announce(changed) }
            } else {
                let fresh = try await database.withConnection(within: options.operationTimeout) { try await database.load(keys: keys, on: $0) }
                let changed = absorb(fresh, keys: keys)
                update { _ = $0.queue.removeFirst() }
                announce(changed)
                // A row that is not JSON can not be compared with; answering `false` would make modify try forever.
                if let unreadable = fresh.unreadable.first(where: { $0.key.map(keys.contains) == true }) {
                    replacement.reply.resolve(.failure(unreadable))
                } else {
                    replacement.reply.resolve(.success(false))
                }
            }
        } catch {
            let mayHaveBeenSent = DatabaseFailure.mayHaveBeenSent(error)
            let outcome =
                mayHaveBeenSent
                ? "Whether it was applied is unknown until the store reads the key\(keys.count == 1 ? "" : "s") again, which it does next."
                : "No connection was made, so nothing was written."
            let failure = StorageError(
                code: DatabaseFailure.isTransient(error) ? .timedOut : .storeFailure, key: keys.count == 1 ? keys.first : nil,
                reason: "\(name) could not compare and swap \(keys.count == 1 ? "its value" : "keys \(keys.sorted().joined(separator: ", "))"): "
                    + "\(database.explanation(of: error)). \(outcome)",
                underlyingError: DatabaseFailure.reportable(error))
            update { state in
                _ = state.queue.removeFirst()
                if mayHaveBeenSent { state.queue.insert(.reload(keys: keys, reply: nil), at: 0) }
            }
            if DatabaseFailure.isTransient(error) { noteFailure(error, doing: "could not reach the database") }
            replacement.reply.resolve(.failure(failure))
        }
    }

    /// Reads the namespace (or `keys`) again; the store's own rereads try until they succeed.
    private func reload(keys: Set<String>?, reply: PendingReply<Void>?) async {
        if let reply, !reply.start() {
            update { _ = $0.queue.removeFirst() }
            return
        }
        var delay = options.initialRetryDelay
        while true {
            do {
                let database = database
                let loaded = try await database.withConnection(within: options.operationTimeout) { connection in
                    if let keys { try await database.load(keys: keys, on: connection) } else { try await database.loadNamespace(on: connection) }
                }
                let changed = absorb(loaded, keys: keys)
                let outage = update { state in
                    _ = state.queue.removeFirst()
                    state.connection = .connected
                    return keys == nil ? state.endDisconnection() : nil
                }
                announce(changed)
                reportResynchronized(after: outage, changedKeys: changed.count)
                reply?.resolve(.success(()))
                return
            } catch {
                noteFailure(error, doing: "could not reload")
                guard reply == nil, !state.withLock({ $0.isClosing }) else {
                    update { _ = $0.queue.removeFirst() }
                    reply?.resolve(
                        .failure(
                            StorageError(
                                code: .storeFailure, reason: "\(name) could not reload: \(database.explanation(of: error)).",
                                underlyingError: DatabaseFailure.reportable(error))))
                    return
                }
                await pause(&delay)
            }
        }
    }

    /// Records rows read again; a key of `keys` (every key held, when `nil`) without a row is absent.
    private func absorb(_ loaded: (rows: [String: PostgresDatabase.Row], unreadable: [StorageError]), keys: Set<String>?) -> Set<String> {
        for problem in loaded.unreadable { report(problem) }
        let unreadable = Set(loaded.unreadable.compactMap(\.key))
        return update { state in
            var rows: [String: PostgresDatabase.Row?] = loaded.rows.mapValues { Optional($0) }
            for key in keys ?? Set(state.committed.keys) where loaded.rows[key] == nil && !unreadable.contains(key) {
                rows[key] = .some(nil)
            }
            return state.absorb(rows)
        }
    }

    // MARK: Failures and announcements

    /// Records a failure to reach the database; reports it when the store was reachable until now.
    private func noteFailure(_ error: any Error, doing what: String) {
        noteFailure(reason: "\(what): \(database.explanation(of: error))", underlyingError: DatabaseFailure.reportable(error))
    }

    /// Records a failure to reach the database. A store that never reached it
    /// (a wrong password, say) reports the first failure as an error; one
    /// that had, as a `.disconnected` event carrying it, once an outage,
    /// however often the connection comes and goes before the full read that
    /// ends it and is reported as `.resynchronized`.
    private func noteFailure(reason: String, underlyingError: (any Error)? = nil) {
        let failure = StorageError(code: .storeFailure, reason: "\(name) \(reason).", underlyingError: underlyingError, storeName: name)
        enum News { case none, firstFailure, outage }
        let news = update { state -> News in
            defer {
                state.lastError = failure
                state.connection = .unreachable
            }
            switch state.connection {
            case .unreachable: return .none
            // Never reached yet (a wrong password, say): an error, as there is no connection to lose.
            case .connecting: return .firstFailure
            case .connected:
                // Flapping before the full read that ends an outage is still that outage.
                guard state.disconnectedSince == nil else { return .none }
                state.disconnectedSince = .now
                return .outage
            }
        }
        switch news {
        case .none: break
        case .firstFailure: report(failure)
        case .outage:
            report(
                StoreEvent(
                    .disconnected, severity: .warning, storeName: name,
                    message: "The store lost the database: \(reason). Reads come from its cache and writes stay queued until it is back.",
                    error: failure))
        }
    }

    /// Tells that a full read made the store current again after it reported losing the database.
    private func reportResynchronized(after outage: Duration?, changedKeys: Int) {
        guard let outage else { return }
        let seconds = Double(outage.components.seconds) + Double(outage.components.attoseconds) / 1e18
        let shown = (seconds * 1000).rounded() / 1000
        report(
            StoreEvent(
                .resynchronized, severity: .notice, storeName: name,
                message:
                    "The store reached the database again after \(shown) s and read its namespace in full; \(changedKeys) key\(changedKeys == 1 ? "" : "s") changed meanwhile.",
                details: ["outage_seconds": String(shown), "changed_keys": String(changedKeys)]))
    }

    /// Tells that queued writes were committed after failed tries, so nothing was lost.
    private func reportCommittedAfterRetries(keys: [String], failedAttempts: Int) {
        report(
            StoreEvent(
                .writeRetriedAndSucceeded, severity: .notice, storeName: name, key: keys.count == 1 ? keys[0] : nil,
                message:
                    "\(keys.count) queued key\(keys.count == 1 ? " was" : "s were") committed after \(failedAttempts) failed \(failedAttempts == 1 ? "attempt" : "attempts"); no write was lost.",
                details: ["attempts": String(failedAttempts + 1), "key_count": String(keys.count)]))
    }

    /// Waits `delay` with up to a quarter more at random, and doubles it up to the maximum.
    private func pause(_ delay: inout Duration) async {
        let jitter = delay * Double.random(in: 0...0.25)
        try? await Task.sleep(for: delay + jitter)
        delay = min(delay * 2, options.maximumRetryDelay)
    }

    /// Reports on the announcements queue, never on the executor's thread,
    /// which every store's timers share: a handler that blocks holds up no store.
    private func report(_ error: StorageError) {
        var error = error
        if error.storeName == nil { error.storeName = name }
        announcements.async { [error] in StowageReport.error(error).report() }
    }

    private func report(_ event: StoreEvent) {
        announcements.async { StowageReport.event(event).report() }
    }

    private func announce(_ keys: Set<String>) {
        guard !keys.isEmpty, let announce = announcer.withLock({ $0 }) else { return }
        announcements.async { announce(keys) }
    }
}
