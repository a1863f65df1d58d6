import Foundation
import StowageLocking
import StowageTestSupport
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

extension WorkerProcess {
    /// The `StowageUserDefaultsWorker` executable, run without LeakSanitizer's
    /// leak check where the tests run under AddressSanitizer: swift-corelibs-foundation's
    /// `UserDefaults` leaks the `Data` values handed to it (reproduced with
    /// five lines of plain Foundation: `set(Data(...), forKey:)`, then exit,
    /// leaks the bytes), so the worker, which writes every kind of value,
    /// failed at exit. The test process runs the same store code with the check on.
    static let userDefaults = WorkerProcess("StowageUserDefaultsWorker")

    /// This process's environment, with leak detection off for the child.
    static var userDefaultsEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let options = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        environment["ASAN_OPTIONS"] = options + "detect_leaks=0"
        return environment
    }
}
