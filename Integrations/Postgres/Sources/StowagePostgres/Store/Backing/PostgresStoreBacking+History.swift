import PostgresNIO
import Stowage
import StowageLocking

/// The history: reads and refusals on a connection of the pool, and the
/// pruning that runs while the store does.
extension PostgresStoreBacking {
    /// Runs `body` on a connection, within the operation timeout, once `run()` runs.
    func withDatabase<Value: Sendable>(
        doing what: String, _ body: @escaping @Sendable (PostgresDatabase, PostgresConnection) async throws -> Value
    ) async throws(StorageError) -> Value {
        let phase = state.withLock { $0.phase }
        guard phase == .running || phase == .stopping else {
            throw phase == .stopped ? stoppedError(key: nil) : unreachableError(key: nil, doing: what)
        }
        let database = database
        do {
            return try await database.withConnection(within: options.operationTimeout) { try await body(database, $0) }
        } catch {
            throw StorageError(
                code: DatabaseFailure.unwrapped(error) is DatabaseFailure.NoAnswer ? .timedOut : .storeFailure,
                reason: "\(name) \(what): \(database.explanation(of: error)).", underlyingError: DatabaseFailure.reportable(error), storeName: name)
        }
    }

    /// Prunes in batches until none is left beyond the retention.
    func pruneHistory() async throws(StorageError) -> Int {
        let retention = options.historyRetention
        guard retention != .forever else { return 0 }
        var total = 0
        while true {
            let deleted = try await withDatabase(doing: "could not prune the history") { database, connection in
                try await database.pruneHistoryBatch(to: retention, on: connection)
            }
            total += deleted
            if deleted < 1_000 { return total }
        }
    }

    /// The task that prunes the history every pruning interval, the first
    /// one interval after the store starts (so that a fleet's servers,
    /// started together, do not all prune at once on every deploy); `nil`
    /// when the history is kept whole.
    func startPruning() -> Task<Void, Never>? {
        guard options.historyRetention != .forever else { return nil }
        let interval = options.historyPruningInterval
        return Task.detached(executorPreference: StoreExecutor.shared) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                // Only once loaded: the tables exist then, and the store reaches the database.
                guard self.state.withLock({ $0.isReady }) else { continue }
                do throws(StorageError) { _ = try await self.pruneHistory() } catch {
                    // A store that stops cancels its pruning: that is no failure to report.
                    guard !Task.isCancelled else { return }
                    self.report(error)
                }
            }
        }
    }
}
