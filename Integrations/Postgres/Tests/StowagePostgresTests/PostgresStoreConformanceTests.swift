import StowagePostgres
import StowageTesting
import Testing

/// The suite every store passes, on a store over the throwaway server: every
/// value read back from a second store that loads it from the database, and
/// a change made by another store reaching references and observers once
/// this one reloads.
@Suite(.runsStores)
struct PostgresStoreConformanceTests {
    @Test(arguments: StorageConformanceSuite<PostgresStore>.Check.allCases)
    func conformance(_ check: StorageConformanceSuite<PostgresStore>.Check) async throws {
        let database = try TestDatabase.shared()
        let options = StorageConformanceSuite<PostgresStore>.Options(
            externalChange: { store, key, value in
                // Another client of the database writes; this store learns of it by reloading.
                let other = try PostgresStore(configuration: database.configuration, namespace: store.namespace)
                try RunningStores.run(other)
                try other.waitUntilReady()
                if let value { try other.set(value, forKey: key) } else { try other.removeValue(forKey: key) }
                try other.flush()
                try store.reloadSynchronously()
            },
            reopen: { store in
                try store.flush()
                let reopened = try PostgresStore(configuration: database.configuration, namespace: store.namespace)
                try RunningStores.run(reopened)
                try reopened.waitUntilReady()
                return reopened
            },
            changeTimeout: .seconds(10),
            supportsNonFiniteDoubles: false
        )
        let suite = StorageConformanceSuite(options: options) {
            let store = try PostgresStore(configuration: database.configuration, namespace: TestDatabase.uniqueNamespace("conformance"))
            try RunningStores.run(store)
            try store.waitUntilReady()
            return store
        }
        let report = try await suite.run(check)
        #expect(report.skipped.isEmpty, "\(report)")
    }
}
