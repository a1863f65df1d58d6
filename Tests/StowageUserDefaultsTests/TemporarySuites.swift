import Foundation
import StowageUserDefaults

/// Suites of `UserDefaults` made for one test, each with a name of its own,
/// and removed (their files with them) when the test is done.
final class TemporarySuites: Sendable {
    private let names = Locked<[String]>([])

    /// A store over a new, empty suite.
    func makeStore() throws -> UserDefaultsStore {
        let name = "stowage-tests-\(UUID().uuidString)"
        names.withLock { $0.append(name) }
        return try UserDefaultsStore(suiteName: name)
    }

    /// Removes every suite made so far.
    func removeAll() {
        for name in names.withLock({ $0 }) {
            UserDefaults(suiteName: name)?.removePersistentDomain(forName: name)
        }
    }
}
