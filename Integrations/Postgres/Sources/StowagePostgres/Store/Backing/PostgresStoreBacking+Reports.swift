import Dispatch
import Stowage
import StowageLocking

/// Failures, events and announcements: what the store tells its callers,
/// `StowageReport.handler` and its keys' observers.
extension PostgresStoreBacking {
    /// An error for a caller whose wait ran out, with the last failure's
    /// explanation, or with the reason there was none: `run()` has not started.
    func unreachableError(key: String?, doing what: String) -> StorageError {
        let (last, phase) = state.withLock { ($0.lastError, $0.phase) }
        let cause =
            phase == .notStarted
            ? ": the store's run() has not started, so it does not reach the database yet; run it in a ServiceGroup (or call run())"
            : last.map { ": \($0.reason)" }
                ?? database.attempts.lastFailureExplanation.map { ": \($0)" }
                ?? ": the database did not answer in time"
        return StorageError(code: .timedOut, key: key, reason: "\(name) \(what)\(cause)", underlyingError: last)
    }

    /// Records a failure to reach the database; reports it when the store was reachable until now.
    func noteFailure(_ error: any Error, doing what: String, probing: Bool = true) {
        noteFailure(reason: "\(what): \(database.explanation(of: error))", underlyingError: DatabaseFailure.reportable(error), probing: probing)
    }

    /// Records a failure to reach the database. A store that never reached it
    /// (a wrong password, say) reports the first failure as an error; one
    /// that had, as a `.disconnected` event carrying it, once an outage,
    /// however often the connection comes and goes before the full read that
    /// ends it and is reported as `.resynchronized`.
    ///
    /// A loaded store then reads its namespace again, after a pause and
    /// with growing pauses while that fails (unless `probing` is false: the
    /// caller pauses reads itself), so its connection state turns back to
    /// `.connected` once the database is back even when nothing else asks it.
    func noteFailure(reason: String, underlyingError: (any Error)? = nil, probing: Bool = true) {
        let failure = StorageError(code: .storeFailure, reason: "\(name) \(reason).", underlyingError: underlyingError, storeName: name)
        enum News { case none, firstFailure, outage }
        let (news, probe) = update { state -> (News, Bool) in
            let probe =
                probing && state.isReady && state.phase == .running && !state.resynchronizationRequested && state.readsPausedUntil == nil
            if probe { state.resynchronizationRequested = true }
            defer {
                state.lastError = failure
                state.connection = .unreachable
            }
            switch state.connection {
            case .unreachable: return (.none, probe)
            // Never reached yet (a wrong password, say): an error, as there is no connection to lose.
            case .connecting: return (.firstFailure, probe)
            case .connected:
                // Flapping before the full read that ends an outage is still that outage.
                guard state.disconnectedSince == nil else { return (.none, probe) }
                state.disconnectedSince = .now
                return (.outage, probe)
            }
        }
        if probe { pauseReads() }
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
    func reportResynchronized(after outage: Duration?, changedKeys: Int) {
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
    func reportCommittedAfterRetries(keys: [String], failedAttempts: Int) {
        report(
            StoreEvent(
                .writeRetriedAndSucceeded, severity: .notice, storeName: name, key: keys.count == 1 ? keys[0] : nil,
                message:
                    "\(keys.count) queued key\(keys.count == 1 ? " was" : "s were") committed after \(failedAttempts) failed \(failedAttempts == 1 ? "attempt" : "attempts"); no write was lost.",
                details: ["attempts": String(failedAttempts + 1), "key_count": String(keys.count)]))
    }

    /// Reports on the announcements queue, never on the executor's thread,
    /// which every store's timers share: a handler that blocks holds up no store.
    func report(_ error: StorageError) {
        var error = error
        if error.storeName == nil { error.storeName = name }
        announcements.async { [error] in StowageReport.handler(.error(error)) }
    }

    func report(_ event: StoreEvent) {
        announcements.async { StowageReport.handler(.event(event)) }
    }

    func announce(_ keys: Set<String>) {
        guard !keys.isEmpty, let announce = state.withLock({ $0.announce }) else { return }
        announcements.async { announce(keys) }
    }
}
