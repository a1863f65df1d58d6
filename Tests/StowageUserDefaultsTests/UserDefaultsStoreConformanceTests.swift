import StowageTesting
import StowageUserDefaults
import Testing

struct UserDefaultsStoreConformanceTests {
    typealias Suite = StorageConformanceSuite<UserDefaultsStore>

    /// Every check over stores of suites of their own. Changes made to the
    /// defaults behind Stowage's back are announced only where Foundation
    /// posts `didChangeNotification` for them, which swift-corelibs-foundation
    /// does not, so on Linux the external change check is left out (the
    /// report lists it as skipped; `UserDefaultsChangeTests` covers what is done).
    @Test(arguments: Suite.Check.allCases)
    func conformance(_ check: Suite.Check) async throws {
        let suites = TemporarySuites()
        defer { suites.removeAll() }
        #if canImport(Darwin)
        let externalChange: (@Sendable (UserDefaultsStore, String, StoredValue?) throws -> Void)? = { store, key, value in
            let other = UserDefaultsStore(store.userDefaults)
            if let value { try other.set(value, forKey: key) } else { try other.removeValue(forKey: key) }
        }
        #else
        let externalChange: (@Sendable (UserDefaultsStore, String, StoredValue?) throws -> Void)? = nil
        #endif
        let suite = Suite(
            options: Suite.Options(
                externalChange: externalChange,
                // A second store over the same suite: what it reads is what the defaults hold, not a cache of Stowage's.
                reopen: { store in try UserDefaultsStore(suiteName: store.suiteName ?? "") }
            )
        ) {
            try suites.makeStore()
        }
        try await suite.run(check)
    }
}
