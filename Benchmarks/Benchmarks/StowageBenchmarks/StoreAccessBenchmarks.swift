import Benchmark
import StowageInMemory

/// Target 3: `store.values.key` and looking up a live reference each cost at
/// most 2x a read of a `Mutex`-guarded dictionary.
func registerStoreAccessBenchmarks() {
    Benchmark("3a Store access - Stowage store.values.key, key has a live reference") { benchmark in
        let store: InMemoryStore = ["launchCount": 41]
        let live = store.reference(forKey: "launchCount", as: Int.self)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.values.launchCount as Int?)
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(live) {}
    }

    Benchmark("3b Store access - Stowage store.values.key, no live reference") { benchmark in
        let store: InMemoryStore = ["launchCount": 41]
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.values.launchCount as Int?)
        }
    }

    Benchmark("3c Store access - Stowage store.reference(forKey:as:), live") { benchmark in
        let store: InMemoryStore = ["launchCount": 41]
        let live = store.reference(forKey: "launchCount", as: Int.self)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.reference(forKey: "launchCount", as: Int.self))
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(live) {}
    }

    // A word-sized value is read straight from the store (3a and 3b take the same
    // path); a string goes through the live reference's cache.
    Benchmark("3e Store access - Stowage store.values.key, String, key has a live reference") { benchmark in
        let store: InMemoryStore = ["userName": "Ada"]
        let live = store.reference(forKey: "userName", as: String.self)
        _ = live.value
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(store.values.userName as String?)
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(live) {}
    }

    Benchmark("3d Store access - baseline Mutex dictionary read") { benchmark in
        let dictionary = LockedDictionary(["launchCount": 41])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(dictionary.value(forKey: "launchCount"))
        }
    }
}
