import Benchmark
import Configuration
import Foundation
import StowageInMemory

/// Target 1: a wrapper read through its cached reference is at most 1.5x a
/// `Mutex`-guarded property read, and at least 40x faster than
/// `UserDefaults` and swift-configuration.
func registerWrapperReadBenchmarks() {
    Benchmark("1a Wrapper read - Stowage settings.launchCount") { benchmark in
        let settings = Settings()
        settings.launchCount = 41
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(settings.launchCount)
        }
    }

    Benchmark("1b Wrapper read - baseline Mutex-guarded class property") { benchmark in
        let counter = LockedCounter(41)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(counter.read())
        }
    }

    Benchmark("1c Wrapper read - context UserDefaults.integer(forKey:)") { benchmark in
        // The registration domain is never written to disk.
        let defaults = UserDefaults.standard
        defaults.register(defaults: ["stowage.benchmarks.launchCount": 41])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.integer(forKey: "stowage.benchmarks.launchCount"))
        }
    }

    Benchmark("1e Wrapper read - context UserDefaults.integer(forKey:), value stored in a suite") { benchmark in
        // A value the program stored, as settings are; 1c reads a registered default,
        // which UserDefaults answers from a faster path. The suite is removed afterwards.
        let suiteName = "stowage.benchmarks"
        guard let defaults = UserDefaults(suiteName: suiteName) else { return }
        defaults.set(41, forKey: "launchCount")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(defaults.integer(forKey: "launchCount"))
        }
        benchmark.stopMeasurement()
        defaults.removePersistentDomain(forName: suiteName)
    }

    Benchmark("1d Wrapper read - context swift-configuration ConfigReader.int(forKey:)") { benchmark in
        let reader = ConfigReader(provider: InMemoryProvider(values: ["launchCount": 41]))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(reader.int(forKey: "launchCount"))
        }
    }
}
