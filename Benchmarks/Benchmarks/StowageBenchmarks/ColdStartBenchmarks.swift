import Benchmark
import Foundation
import StowageJSONFile

/// Group 15: a short-lived tool's whole run, as processes: start, open the
/// 10,000-key settings file of groups 6 to 8 (in the page cache), read one
/// value, print it, exit. Stowage (default options, change detection on)
/// against a Foundation program doing `Data(contentsOf:)` and
/// `JSONSerialization`; Stowage without change detection for context. One
/// process per sample, timed from spawn to exit; `child CPU` is what the
/// process used, user and system.
func registerColdStartBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .custom("child CPU (µs)", useScalingFactor: false)],
        timeUnits: .microseconds,
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(4),
        maxIterations: 400
    )
    struct Fixture {
        var directory: TemporaryDirectory
        var file: String
        var command: [String]
    }
    func setUp(_ state: SetupState<Fixture>, executable: String, extra: [String] = []) throws {
        let directory = try TemporaryDirectory("cold-start")
        let bytes = try JSONFileFixture.fileBytes(in: directory)
        let file = directory.path("settings.json")
        try bytes.write(to: URL(filePath: file))
        let command = [try ChildProcesses.executable(executable), file, JSONFileFixture.key(0)] + extra
        state.value = Fixture(directory: directory, file: file, command: command)
    }
    func run(_ state: SetupState<Fixture>, _ benchmark: Benchmark) throws {
        benchmark.startMeasurement()
        let cpu = try ChildProcesses.runTogether([state.unwrapped.command])
        benchmark.stopMeasurement()
        benchmark.measurement(.custom("child CPU (µs)", useScalingFactor: false), cpu)
    }

    let stowage = SetupState<Fixture>()
    Benchmark(
        "15a Cold start, 10,000-key file, one value - Stowage JSONFileStore default options, a wrapper read",
        configuration: configuration,
        closure: { try run(stowage, $0) },
        setup: { try setUp(stowage, executable: "ColdStartStowage") },
        teardown: { stowage.value?.directory.remove() }
    )

    let foundation = SetupState<Fixture>()
    Benchmark(
        "15b Cold start, 10,000-key file, one value - baseline Foundation Data(contentsOf:) + JSONSerialization",
        configuration: configuration,
        closure: { try run(foundation, $0) },
        setup: { try setUp(foundation, executable: "ColdStartFoundation") },
        teardown: { foundation.value?.directory.remove() }
    )

    let quiet = SetupState<Fixture>()
    Benchmark(
        "15c Cold start, 10,000-key file, one value - context Stowage with changeDetection: .none",
        configuration: configuration,
        closure: { try run(quiet, $0) },
        setup: { try setUp(quiet, executable: "ColdStartStowage", extra: ["--no-change-detection"]) },
        teardown: { quiet.value?.directory.remove() }
    )
}
