import Benchmark
import StowageInMemory

/// Target 2: a wrapper write to `InMemoryStore` with no observers takes less than 400 ns.
func registerWrapperWriteBenchmarks() {
    Benchmark("2a Wrapper write - Stowage settings.launchCount = i") { benchmark in
        let settings = Settings()
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            settings.launchCount = i
        }
    }

    Benchmark("2b Wrapper write - baseline Mutex dictionary write") { benchmark in
        let dictionary = LockedDictionary(["launchCount": 0])
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            dictionary.setValue(i, forKey: "launchCount")
        }
    }
}
