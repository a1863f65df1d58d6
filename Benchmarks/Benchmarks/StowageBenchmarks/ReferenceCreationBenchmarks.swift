import Benchmark
import Foundation
import StowageInMemory

/// Group 18: making a reference to a new key while 1,000 or 1,000,000 others
/// are alive, against making the hand-written alternative (a `Mutex`-guarded
/// class instance) while as many of those are alive; and what a live
/// reference costs in memory as glibc counts it (`mallinfo2`, chunk overhead
/// and the registry's table included), beside the same count for the baseline.
///
/// Each sample makes 1,000 references to fresh keys and keeps them until the
/// sample ends; they are dropped outside the measured stretch, so their
/// `deinit`s are not counted.
func registerReferenceCreationBenchmarks() {
    let perSample = 1_000
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )
    for live in [1_000, 1_000_000] {
        let label = live.formatted(.number.grouping(.automatic))

        struct References {
            let store = InMemoryStore()
            var alive: [StorageReference<InMemoryStore, Int>] = []
            var made: [StorageReference<InMemoryStore, Int>] = []
            let newKeys: [String]
        }
        let references = SetupState<References>()
        Benchmark(
            "18a Making a reference, \(label) alive - Stowage store.reference(forKey:as:) of a new key",
            configuration: configuration,
            closure: { benchmark in
                benchmark.startMeasurement()
                for key in references.unwrapped.newKeys {
                    references.value!.made.append(references.unwrapped.store.reference(forKey: key, as: Int.self))
                }
                benchmark.stopMeasurement()
                references.value!.made.removeAll(keepingCapacity: true)
            },
            setup: {
                var fixture = References(newKeys: (0..<perSample).map { "new.\($0)" })
                fixture.alive = (0..<live).map { fixture.store.reference(forKey: "alive.\($0)", as: Int.self) }
                fixture.made.reserveCapacity(perSample)
                references.value = fixture
            },
            teardown: { references.value = nil }
        )

        let counters = SetupState<(alive: [LockedCounter], made: [LockedCounter])>()
        Benchmark(
            "18b Making a reference, \(label) alive - baseline a Mutex-guarded class instance",
            configuration: configuration,
            closure: { benchmark in
                benchmark.startMeasurement()
                for index in 0..<perSample {
                    counters.value!.made.append(LockedCounter(index))
                }
                benchmark.stopMeasurement()
                counters.value!.made.removeAll(keepingCapacity: true)
            },
            setup: {
                counters.value = ((0..<live).map { LockedCounter($0) }, [])
                counters.value!.made.reserveCapacity(perSample)
            },
            teardown: { counters.value = nil }
        )
    }

    // Memory: 100,000 made in a fresh process (Programs/ReferenceMemory), started
    // without the plugin's LD_PRELOAD of its malloc interposer, which adds to
    // every allocation glibc counts (564 bytes a reference instead of 500, measured).
    let count = 100_000
    let bytesEach = BenchmarkMetric.custom("bytes each (mallinfo2)", polarity: .prefersSmaller, useScalingFactor: false)
    let memoryConfiguration = Benchmark.Configuration(
        metrics: [bytesEach],
        warmupIterations: 0,
        scalingFactor: .one,
        maxIterations: 1
    )
    for (letter, mode, label) in [
        ("c", "stowage", "Stowage 100,000 live references to distinct keys"),
        ("d", "baseline", "baseline 100,000 Mutex-guarded class instances"),
    ] {
        Benchmark("18\(letter) Memory, in a process of its own - \(label), bytes each", configuration: memoryConfiguration) { benchmark in
            let output = try ChildProcesses.output(
                of: [try ChildProcesses.executable("ReferenceMemory"), mode, "\(count)"], environment: ChildProcesses.environmentWithoutPreloads())
            guard let bytes = output.split(separator: " ").first.flatMap({ Int($0) }) else {
                throw ChildProcesses.Failure(description: "ReferenceMemory printed \(output)")
            }
            benchmark.measurement(bytesEach, bytes)
        }
    }
}
