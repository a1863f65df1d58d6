import Benchmark
import Foundation
import StowageJSONFile

/// Group 17: `flush()` after one change, in files of 1,000 to 1,000,000 keys
/// (the mixed values of groups 6 to 8; 28 KB to 31 MB), against the
/// file-system part alone at the same size: write a temporary file, `fsync`,
/// `rename`, `fsync` the folder (as 7c). What the store adds is formatting the
/// file; it keeps the text it last wrote, so it formats only the changed member.
func registerLargeFileFlushBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 200
    )
    struct Fixture {
        var directory: TemporaryDirectory
        var store: JSONFileStore
        var bytes: Data
        var sample = 0
    }
    for keys in [1_000, 10_000, 100_000, 1_000_000] {
        func setUp(_ state: SetupState<Fixture>) throws {
            let directory = try TemporaryDirectory("large-flush-\(keys)")
            let path = directory.path("settings.json")
            let store = JSONFileStore(url: URL(filePath: path), options: JSONFileFixture.quietOptions)
            for index in 0..<keys {
                try store.set(JSONFileFixture.value(index), forKey: JSONFileFixture.key(index))
            }
            try store.flush()
            state.value = Fixture(directory: directory, store: store, bytes: try Data(contentsOf: URL(filePath: path)))
        }
        let label = keys.formatted(.number.grouping(.automatic))

        let stowage = SetupState<Fixture>()
        Benchmark(
            "17a Flush after one change, \(label)-key file - Stowage flush(), to disk with fsync",
            configuration: configuration,
            closure: { benchmark in
                stowage.value!.sample += 1
                let fixture = stowage.unwrapped
                try fixture.store.set(fixture.sample, forKey: JSONFileFixture.key(0))
                benchmark.startMeasurement()
                try fixture.store.flush()
                benchmark.stopMeasurement()
            },
            setup: { try setUp(stowage) },
            teardown: { stowage.value?.directory.remove() }
        )

        let fileSystem = SetupState<Fixture>()
        Benchmark(
            "17b Flush after one change, \(label)-key file - baseline the file-system part alone: write temporary, fsync, rename, fsync directory",
            configuration: configuration,
            closure: { benchmark in
                let fixture = fileSystem.unwrapped
                benchmark.startMeasurement()
                try replaceDurably(fixture.directory.path("settings.json"), with: fixture.bytes)
                benchmark.stopMeasurement()
            },
            setup: { try setUp(fileSystem) },
            teardown: { fileSystem.value?.directory.remove() }
        )
    }
}
