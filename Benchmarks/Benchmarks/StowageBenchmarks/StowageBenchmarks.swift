import Benchmark

// Each group puts the Stowage figure ("a") beside its hand-written baseline
// ("b") and, where useful, other libraries for context ("c", "d"), so that the
// ratio the targets speak of can be read off one run. README.md has the
// targets and the figures of the last full run.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    registerWrapperReadBenchmarks()
    registerWrapperWriteBenchmarks()
    registerStoreAccessBenchmarks()
    registerContentionBenchmarks()
    registerReferenceMemoryBenchmarks()
    registerJSONFileBenchmarks()
    registerEnvironmentBenchmarks()
    registerCompositionBenchmarks()
    registerChangeDetectionBenchmarks()
    registerFlagBenchmarks()
    registerColdStartBenchmarks()
    registerMultiProcessModifyBenchmarks()
    registerPairedModifyBenchmarks()
    registerLargeFileFlushBenchmarks()
    registerReferenceCreationBenchmarks()
    registerUserDefaultsBenchmarks()
}
