import Stowage
import StowagePostgres

/// Waits for a store's queued writes while its database comes back (the
/// server restarting, or connections frozen), trying again each time the
/// wait times out; each try waits for the real commit.
func commitOnceBack(_ store: PostgresStore) async throws {
    for _ in 0..<15 {
        do {
            try await store.commitPendingWrites()
            return
        } catch let error as StorageError where error.code == .timedOut {
            continue
        }
    }
    try await store.commitPendingWrites()
}
