import Stowage
import StowageJSON

/// What the shared listener tells the store, and the reads that follow: a
/// notice's keys, or the whole namespace after `LISTEN` is (again) in place.
extension PostgresStoreBacking {
    /// `LISTEN` is in place: changes from now on will be told, so what was
    /// missed before is read once, in full, unless the first load is still to come.
    func listenerStartedListening() {
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
    func listenerLost(explanation: String, reachable: Bool) {
        update { state in
            if state.receivesChanges { state.currentAsOf = .now }
            state.isListening = false
            state.receivesChanges = false
        }
        // The listener tries again itself, and says when it listens: no read is needed to find out.
        if !reachable { noteFailure(reason: explanation, probing: false) }
        listenerSettled.resolve(.success(()))
    }

    /// A change was made: takes the value from the notice when it carries
    /// one, else reads the key (or the namespace) before the worker's next
    /// step, unless the store holds it already.
    func received(_ notice: ChangeNotice) {
        guard notice.concerns(namespace: database.namespace) else { return }
        // Decoded outside the lock; a value that is not JSON is read from the table instead, which reports it.
        var carried: StoredValue?
        if case .row(_, _, _, false, let text?) = notice { carried = try? StoredValue(jsonText: text) }
        let (wakeWorker, changed) = update { state -> (Bool, Set<String>) in
            // The first load, not begun yet, will read it.
            guard state.hasStartedLoading else { return (false, []) }
            switch notice {
            case .row(_, let key, let revision, let deleted, _):
                // The store's own writes come back as notices; it holds their revision already,
                // or will once the write queued for the key is committed.
                if !deleted, let held = state.committed[key]?.revision, held >= revision { return (false, []) }
                if state.isWriting(key) {
                    state.noticesDuringWrites[key] = max(state.noticesDuringWrites[key] ?? 0, deleted ? .max : revision)
                    return (false, [])
                }
                if let carried {
                    // Applied only if newer than held, as a read's row is: notices and reads may cross.
                    return (false, state.absorbNewer([key: .init(value: carried, revision: revision)]))
                }
                state.keysToRefresh.insert(key)
            case .namespace, .everything:
                state.resynchronizationRequested = true
            }
            return (true, [])
        }
        announce(changed)
        if wakeWorker { wake.yield() }
    }

    /// Reads the whole namespace and announces what changed, removals
    /// included; once it began after the latest `LISTEN`, the cache receives every change.
    func resynchronize() async {
        let (generation, startedAt) = update { ($0.listenGeneration, ContinuousClock.now) }
        do {
            let database = database
            let loaded = try await withStepConnection(within: options.operationTimeout) { try await database.loadNamespace(on: $0) }
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
            guard !Task.isCancelled else { return }
            update { $0.resynchronizationRequested = true }
            readFailed(error, doing: "could not read its values again")
        }
    }

    /// Reads the keys notices named and applies each row newer than the one held.
    func refresh(_ keys: Set<String>) async {
        do {
            let database = database
            let loaded = try await withStepConnection(within: options.operationTimeout) { try await database.load(keys: keys, on: $0) }
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
            guard !Task.isCancelled else { return }
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
        noteFailure(error, doing: what, probing: false)
        pauseReads()
    }

    /// Pauses reads for a delay that doubles after each failed read, with
    /// jitter, and wakes the worker when it is over.
    func pauseReads() {
        let delay = update { state -> Duration in
            let delay = state.readRetryDelay ?? options.initialRetryDelay
            state.readRetryDelay = min(delay * 2, options.maximumRetryDelay)
            let jittered = delay + delay * Double.random(in: 0...0.25)
            state.readsPausedUntil = .now + jittered
            return jittered
        }
        Task(executorPreference: StoreExecutor.shared) { [weak self] in
            try? await Task.sleep(for: delay)
            self?.wake.yield()
        }
    }
}
