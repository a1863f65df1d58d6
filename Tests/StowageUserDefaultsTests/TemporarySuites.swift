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
            UserDefaultsAccess.withLock { UserDefaults(suiteName: name)?.removePersistentDomain(forName: name) }
        }
    }
}

extension UserDefaults {
    /// Writes as another library would, one call at a time with the stores'
    /// own: on Linux, calls made at once by several threads lost updates
    /// (see `UserDefaultsAccess`), and these tests run in parallel with others.
    func setAsOtherCode(_ value: Any, forKey key: String) {
        UserDefaultsAccess.withLock { set(value, forKey: key) }
    }
}
