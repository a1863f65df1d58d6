import Benchmark
import Foundation
import StowageUserDefaults

/// A setting kept in `UserDefaults`, as an app moving in from Foil or Defaults declares it.
struct UserDefaultsSettings: Sendable {
    @UserDefaultsStorage<Int> var launchCount: Int

    init(store: UserDefaultsStore) {
        _launchCount = UserDefaultsStorage(wrappedValue: 0, "launchCount", in: store)
    }
}

/// Group 19: a wrapper read over `UserDefaultsStore` (19a) against
/// `UserDefaults.integer(forKey:)` on the same suite (19b), what an app reads
/// today by hand or through Foil, whose getter is that call. The suite is one
/// of its own, removed at the end.
func registerUserDefaultsBenchmarks() {
    let suiteName = "stowage-benchmarks-\(ProcessInfo.processInfo.processIdentifier)"

    Benchmark(
        "19a UserDefaults - Stowage @UserDefaultsStorage settings.launchCount",
        closure: { benchmark in
            let store = try UserDefaultsStore(suiteName: suiteName)
            let settings = UserDefaultsSettings(store: store)
            settings.launchCount = 41
            precondition(settings.launchCount == 41)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(settings.launchCount)
            }
            benchmark.stopMeasurement()
            store.userDefaults.removePersistentDomain(forName: suiteName)
        }
    )

    Benchmark("19b UserDefaults - baseline UserDefaults.integer(forKey:)") { benchmark in
        guard let defaults = UserDefaults(suiteName: suiteName) else { fatalError("UserDefaults refused the suite \(suiteName)") }
        defaults.set(41, forKey: "launchCount")
        precondition(defaults.integer(forKey: "launchCount") == 41)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.integer(forKey: "launchCount"))
        }
        benchmark.stopMeasurement()
        defaults.removePersistentDomain(forName: suiteName)
    }
}
