import Stowage
import StowageLocking

/// Loading: the first load (tables made if need be), readiness, and
/// reloads asked for by callers or after a refused write.
extension PostgresStoreBacking {
    /// Waits until the first load is done.
    func ready(timeout: Duration) async throws(StorageError) {
        let reply = PendingReply<Void>()
        let readiness = update { state -> Bool? in
            if state.isReady { return true }
            guard state.phase != .stopped else { return nil }
            state.readyWaiters.append(reply)
            return false
        }
        guard let readiness else { throw stoppedError(key: nil) }
        guard !readiness else { return }
        try await reply.value(within: timeout) { [self] _ in
            unreachableError(key: nil, doing: "is not ready after \(timeout): its first load has not finished")
        }
    }

    /// Reads the whole namespace again and announces what changed.
    func reload() async throws(StorageError) {
        let reply = PendingReply<Void>()
        let queued = update { state -> Bool in
            guard state.phase != .stopped else { return false }
            state.queue.append(.reload(keys: nil, reply: reply))
            return true
        }
        guard queued else { throw stoppedError(key: nil) }
        wake.yield()
        try await reply.value(within: options.operationTimeout) { [self] _ in
            unreachableError(key: nil, doing: "could not reload")
        }
    }

    /// Creates the tables if need be and loads the namespace, trying again until it works.
    func loadUntilReady() async {
        var delay = options.initialRetryDelay
        while !Task.isCancelled, state.withLock({ $0.phase == .running }) {
            let (generation, startedAt) = update { state in
                state.hasStartedLoading = true
                return (state.listenGeneration, ContinuousClock.now)
            }
            do {
                let database = database
                let secretKeys = options.secretKeys
                let (withoutNotifications, loaded) = try await database.withConnection(within: options.operationTimeout) { connection in
                    let withoutNotifications = try await database.prepareTables(on: connection)
                    try await database.addSecretPatterns(secretKeys, on: connection)
                    return (withoutNotifications, try await database.loadNamespace(on: connection))
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
                firstLoadDone.resolve(.success(()))
                return
            } catch {
                guard !Task.isCancelled else { return }
                noteFailure(error, doing: "could not load its values")
                await pause(&delay)
            }
        }
    }

    /// Reads the namespace (or `keys`) again; the store's own rereads try until they succeed.
    func reload(keys: Set<String>?, reply: PendingReply<Void>?) async {
        if let reply, !reply.start() {
            update { $0.removeFront() }
            return
        }
        var delay = options.initialRetryDelay
        while !Task.isCancelled {
            do {
                let database = database
                let loaded = try await withStepConnection(within: options.operationTimeout) { connection in
                    if let keys { try await database.load(keys: keys, on: connection) } else { try await database.loadNamespace(on: connection) }
                }
                let changed = absorb(loaded, keys: keys)
                let outage = update { state in
                    state.removeFront()
                    state.connection = .connected
                    return keys == nil ? state.endDisconnection() : nil
                }
                announce(changed)
                reportResynchronized(after: outage, changedKeys: changed.count)
                reply?.resolve(.success(()))
                return
            } catch {
                guard !Task.isCancelled else { return }
                noteFailure(error, doing: "could not reload")
                guard reply == nil, state.withLock({ $0.phase == .running }) else {
                    update { $0.removeFront() }
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
    func absorb(_ loaded: PostgresDatabase.LoadedRows, keys: Set<String>?) -> Set<String> {
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
}
