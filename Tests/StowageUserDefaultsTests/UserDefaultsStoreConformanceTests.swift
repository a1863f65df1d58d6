import Foundation
import StowageTestSupport
import StowageTesting
import StowageUserDefaults
import Testing

struct UserDefaultsStoreConformanceTests {
    typealias Suite = StorageConformanceSuite<UserDefaultsStore>

    /// Every check over stores of suites of their own. A change behind
    /// Stowage's back is made by another process, which writes the suite's
    /// file, and seen through `refresh()`, as a program does when told its
    /// settings changed: on Linux `UserDefaults` never rereads its file on its own.
    @Test(arguments: Suite.Check.allCases)
    func conformance(_ check: Suite.Check) async throws {
        let suites = TemporarySuites()
        defer { suites.removeAll() }
        let externalChange: @Sendable (UserDefaultsStore, String, StoredValue?) throws -> Void = { store, key, value in
            let suiteName = store.suiteName ?? ""
            let arguments =
                value.map { ["set", suiteName, key, ExactForm.encode($0).map { String(format: "%02x", $0) }.joined()] } ?? ["remove", suiteName, key]
            let (status, output) = try WorkerProcess.userDefaults.run(arguments, environment: WorkerProcess.userDefaultsEnvironment)
            guard status == 0 else { throw StorageError(code: .storeFailure, key: key, reason: "the worker failed: \(output)") }
            try store.refresh()
        }
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
