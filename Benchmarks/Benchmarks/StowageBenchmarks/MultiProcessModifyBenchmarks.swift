import Benchmark
import Foundation

/// Group 16: 1, 2, 4 and 8 processes each add 1 to a counter in one settings
/// file 100 times (`modify`, under the file's cross-process lock), against the
/// hand-written floor (`flock`, read, write a temporary file, `fsync`,
/// `rename`, `fsync` the folder) in the same number of processes; Stowage
/// with its change monitor off for context. One sample is the whole run,
/// from the first spawn to the last exit; the throughput is increments a
/// second. The file starts small (one key), so the work is the lock and the
/// disk, not the parsing.
func registerMultiProcessModifyBenchmarks() {
    let increments = 100
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(6),
        maxIterations: 30
    )
    for processes in [1, 2, 4, 8] {
        for (letter, mode, label) in [
            ("a", "stowage", "Stowage modify, default options (change monitor on)"),
            ("b", "floor", "baseline hand-written flock, read, write, fsync, rename, fsync folder"),
            ("c", "stowage-no-monitor", "context Stowage modify, changeDetection: .none"),
        ] {
            let state = SetupState<(TemporaryDirectory, [[String]])>()
            Benchmark(
                "16\(letter) \(processes) process\(processes == 1 ? "" : "es") x \(increments) increments of one counter - \(label)",
                configuration: configuration,
                closure: { benchmark in
                    let (directory, commands) = state.unwrapped
                    let file = directory.path("counter.json")
                    let before = try counter(in: file)
                    benchmark.startMeasurement()
                    try ChildProcesses.runTogether(commands)
                    benchmark.stopMeasurement()
                    // Every process's every increment must be there, or the figure means nothing.
                    let after = try counter(in: file)
                    guard after == before + processes * increments else {
                        throw ChildProcesses.Failure(description: "the counter went from \(before) to \(after), not up by \(processes * increments)")
                    }
                },
                setup: {
                    let directory = try TemporaryDirectory("modify-\(processes)")
                    let worker = try ChildProcesses.executable("ModifyWorker")
                    let command = [worker, mode, directory.path("counter.json"), "\(increments)"]
                    state.value = (directory, Array(repeating: command, count: processes))
                },
                teardown: { state.value?.0.remove() }
            )
        }
    }
}

/// Group 16d: the same runs as 16a and 16b, paired. 16a's samples and 16b's
/// are taken in separate windows of several seconds, and the disk's speed
/// drifts between windows: in three runs of group 16 alone, 16b with 8
/// processes took 342, 345 and 431 ms at the median. Here every sample runs
/// both, back to back, in rotating order, each on a file of its own, and
/// reports each one's time and the pair's ratio, so a slow spell of the disk
/// weighs on both sides of the ratio alike. For context, each sample also
/// runs the increments as `JSONFileStore.transaction`s, whose body runs under
/// the lock: what a `modify` would cost without compare-and-swap retries.
func registerPairedModifyBenchmarks() {
    let increments = 100
    let stowage = BenchmarkMetric.custom("Stowage modify (ms)", useScalingFactor: false)
    let floor = BenchmarkMetric.custom("floor (ms)", useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("throughput / floor's (%)", polarity: .prefersLarger, useScalingFactor: false)
    let transaction = BenchmarkMetric.custom("context: transaction (ms)", useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [stowage, floor, ratio, transaction],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(15),
        maxIterations: 30
    )
    for processes in [2, 4, 8] {
        let state = SetupState<(directory: TemporaryDirectory, worker: String, samples: Int)>()
        Benchmark(
            "16d \(processes) processes x \(increments) increments, paired - Stowage modify (change monitor on), the floor and a transaction, back to back",
            configuration: configuration,
            closure: { benchmark in
                let (directory, worker, samples) = state.unwrapped
                state.value?.samples += 1
                var milliseconds: [String: Int] = [:]
                // Rotating which goes first, so none always follows another's writes.
                let modes = ["floor", "stowage", "stowage-transaction"]
                for offset in 0..<modes.count {
                    let mode = modes[(samples + offset) % modes.count]
                    let file = directory.path("\(mode).json")
                    let before = try counter(in: file)
                    let start = ContinuousClock.now
                    try ChildProcesses.runTogether(Array(repeating: [worker, mode, file, "\(increments)"], count: processes))
                    let elapsed = (ContinuousClock.now - start).components
                    milliseconds[mode] = Int(elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000)
                    let after = try counter(in: file)
                    guard after == before + processes * increments else {
                        throw ChildProcesses.Failure(description: "\(mode): the counter went from \(before) to \(after), not up by \(processes * increments)")
                    }
                }
                let stowageTime = milliseconds["stowage"] ?? 0
                let floorTime = milliseconds["floor"] ?? 0
                benchmark.measurement(stowage, stowageTime)
                benchmark.measurement(floor, floorTime)
                // Throughput is increments over time, so the ratio of throughputs is the floor's time over Stowage's.
                benchmark.measurement(ratio, stowageTime > 0 ? floorTime * 100 / stowageTime : 0)
                benchmark.measurement(transaction, milliseconds["stowage-transaction"] ?? 0)
            },
            setup: {
                state.value = (try TemporaryDirectory("paired-modify-\(processes)"), try ChildProcesses.executable("ModifyWorker"), 0)
            },
            teardown: { state.value?.directory.remove() }
        )
    }
}

/// The counter a group 16 file holds, 0 before the first run.
private func counter(in file: String) throws -> Int {
    guard FileManager.default.fileExists(atPath: file) else { return 0 }
    let text = try String(contentsOfFile: file, encoding: .utf8)
    guard let name = text.range(of: "\"counter\"") else { return 0 }
    return Int(String(text[name.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber })) ?? 0
}
