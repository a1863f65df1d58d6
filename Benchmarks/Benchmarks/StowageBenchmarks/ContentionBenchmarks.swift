import Benchmark
import StowageInMemory

/// Target 4 has no fixed ratio: it shows how a wrapper holds up under
/// contention beside a plain `Mutex<Int>`, with 10 reader and 2 writer threads
/// on one key, each doing a fixed number of operations.
func registerContentionBenchmarks() {
    let readers = 10
    let writers = 2
    // Bounded by the slowest case seen: about 25,000 operations per second
    // when Linux's priority-inheritance futex makes the lock convoy.
    let operationsPerThread = 10_000
    let totalOperations = (readers + writers) * operationsPerThread
    let operationsPerSecond = BenchmarkMetric.custom("ops/s, all threads", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, operationsPerSecond],
        timeUnits: .milliseconds,
        units: [operationsPerSecond: .kilo],
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 10
    )

    func measure(_ benchmark: Benchmark, read: @escaping @Sendable () -> Int, write: @escaping @Sendable (Int) -> Void) {
        let elapsed = ThreadGang.run(threads: readers + writers, willStart: benchmark.startMeasurement) { index in
            if index < readers {
                for _ in 0..<operationsPerThread { blackHole(read()) }
            } else {
                for i in 0..<operationsPerThread { write(i) }
            }
        }
        benchmark.stopMeasurement()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        benchmark.measurement(operationsPerSecond, Int(Double(totalOperations) / seconds))
    }

    Benchmark("4a Contention 10 readers 2 writers - Stowage wrapper", configuration: configuration) { benchmark in
        let settings = Settings()
        settings.launchCount = 0
        measure(benchmark, read: { settings.launchCount }, write: { settings.launchCount = $0 })
    }

    Benchmark("4b Contention 10 readers 2 writers - baseline Mutex<Int>", configuration: configuration) { benchmark in
        let counter = LockedCounter(0)
        measure(benchmark, read: { counter.read() }, write: { counter.write($0) })
    }
}
