import Benchmark
import StowageInMemory

/// Target 5 has no fixed figure: what a live reference costs in memory, with
/// 10,000 references to distinct keys kept alive, beside 10,000 of the
/// hand-written alternative. Divide the reported figures by 10,000.
///
/// One iteration only, in a fresh store: later iterations would find the
/// registry holding the dead entries of earlier ones, and its sweeps would
/// free them inside the measured region.
func registerReferenceMemoryBenchmarks() {
    let count = 10_000
    let metrics: [BenchmarkMetric] = [.memoryLeakedBytes, .mallocFreeDelta, .mallocCountTotal, .mallocBytesCount]
    let configuration = Benchmark.Configuration(
        metrics: metrics,
        units: Dictionary(uniqueKeysWithValues: metrics.map { ($0, .count) }),
        warmupIterations: 0,
        scalingFactor: .one,
        maxIterations: 1
    )

    Benchmark("5a Memory - Stowage 10,000 live references to distinct keys", configuration: configuration) { benchmark in
        let store = InMemoryStore()
        // Keys fit in a small string, so making them allocates nothing and
        // the measured bytes are Stowage's own.
        let keys = (0..<count).map { "key.\($0)" }
        var references: [StorageReference<InMemoryStore, Int>] = []
        references.reserveCapacity(count)
        benchmark.startMeasurement()
        for key in keys {
            references.append(store.reference(forKey: key, as: Int.self))
        }
        benchmark.stopMeasurement()
        blackHole(references)
    }

    Benchmark("5b Memory - baseline 10,000 Mutex-guarded class instances", configuration: configuration) { benchmark in
        var counters: [LockedCounter] = []
        counters.reserveCapacity(count)
        benchmark.startMeasurement()
        for index in 0..<count {
            counters.append(LockedCounter(index))
        }
        benchmark.stopMeasurement()
        blackHole(counters)
    }
}
