import Foundation
import StowagePostgres
import Testing

/// A fleet's servers start together: a deploy opens every server's store at
/// once, on tables none of them has made yet.
@Suite(.runsStores)
struct PostgresStoreStartupTests {
    /// Stores that waited for the setup lock inside their transaction saw the
    /// catalog as it was when the transaction began, tried to make the tables
    /// the lock's holder had just made, and failed to load: "duplicate key
    /// value violates unique constraint schema_versions_pkey" (SQLSTATE 23505).
    /// Each store has a pool of its own, so twelve stores are twelve sessions,
    /// as twelve servers would be.
    @Test func twelveStoresOpeningTogetherOnFreshTablesAllLoadAtTheFirstTryTenTimesInARow() async throws {
        let database = try TestDatabase.shared()
        let reports = RecordedReports.errors
        for round in 1...10 {
            let schema = "startup_\(round)_\(UUID().uuidString.prefix(8).lowercased())"
            let stores = try (0..<12).map { _ in
                try PostgresStore(configuration: database.configuration, namespace: "n", options: .init(schema: schema, listensForChanges: false))
            }
            // Subscribed before any store runs, so the histories are complete.
            let histories = stores.map { $0.statusUpdates() }
            for store in stores { try RunningStores.run(store) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for store in stores { group.addTask { try await store.ready(timeout: .seconds(60)) } }
                try await group.waitForAll()
            }
            for (store, history) in zip(stores, histories) {
                var seen: [PostgresStore.ConnectionState] = []
                for await status in history {
                    seen.append(status.connection)
                    if status.connection == .connected { break }
                }
                let failures = reports.all.filter { $0.storeName == store.description }.map(\.message)
                #expect(!seen.contains(.unreachable), "round \(round), \(store): \(seen), \(failures)")
            }
        }
    }
}
