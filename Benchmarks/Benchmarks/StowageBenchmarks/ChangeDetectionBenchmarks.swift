import Benchmark
import Dispatch
import Foundation
import StowageJSONFile
import StowageLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Group 12: how soon an edit made outside the store reaches an observer.
///
/// Each sample replaces a 10-key settings file the way an editor or a
/// deployment tool does (write a temporary file, rename it over the old one)
/// and waits for the news of it. 12a waits for the observer of a
/// `JSONFileStore` reference to the changed key; 12b, the floor, waits for the
/// kernel's own inotify event for the rename, read by a thread blocked on the
/// descriptor, with no store at all. The difference is the store's share:
/// waking its monitor, reading and parsing the file, comparing keys,
/// announcing. The test suite checks that every edit is seen; this measures
/// how soon.
func registerChangeDetectionBenchmarks() {
    #if os(Linux)
    let storeState = SetupState<StoreEditFixture>()
    Benchmark(
        "12a External edit to observer - Stowage JSONFileStore reference observer, 10-key file replaced by rename",
        configuration: editConfiguration,
        closure: { benchmark in try storeState.unwrapped.measure(benchmark) },
        setup: { storeState.value = try StoreEditFixture() },
        teardown: { storeState.value?.tearDown() }
    )

    // The store rechecks a file that keeps changing at most every 5 ms, and
    // 12a's edits follow one another at once: an edit after a quiet spell,
    // as a person or a deployment tool makes one, is this.
    let quietState = SetupState<StoreEditFixture>()
    Benchmark(
        "12c External edit to observer - Stowage JSONFileStore reference observer, each edit after 10 ms without one",
        configuration: editConfiguration,
        closure: { benchmark in try quietState.unwrapped.measure(benchmark, pausingFirst: .milliseconds(10)) },
        setup: { quietState.value = try StoreEditFixture() },
        teardown: { quietState.value?.tearDown() }
    )

    let inotifyState = SetupState<InotifyEditFixture>()
    Benchmark(
        "12b External edit to observer - baseline the inotify event for the same rename, read by a blocked thread",
        configuration: editConfiguration,
        closure: { benchmark in try inotifyState.unwrapped.measure(benchmark) },
        setup: { inotifyState.value = try InotifyEditFixture() },
        teardown: { inotifyState.value?.tearDown() }
    )
    #endif
}

/// One edit per sample; a few hundred samples give a stable p99. Group 13's external overrides use it too.
var editConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 500
    )
}

/// Writes the settings file with `edit` as its changing value, through a
/// temporary file renamed into place.
private func replaceSettings(in directory: TemporaryDirectory, edit: Int) throws {
    var members = (0..<9).map { "\"setting\($0)\": \($0)" }
    members.append("\"edit\": \(edit)")
    let text = "{" + members.joined(separator: ", ") + "}"
    try Data(text.utf8).write(to: URL(filePath: directory.path("settings.json.tmp")))
    guard rename(directory.path("settings.json.tmp"), directory.path("settings.json")) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}

#if os(Linux)
final class StoreEditFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let store: JSONFileStore
    let token: ObservationToken
    let seen = DispatchSemaphore(value: 0)
    /// The edit the sample waits for; the observer runs on the store's monitor thread.
    let expected = Locked(0)
    var edit = 0

    init() throws {
        directory = try TemporaryDirectory("change-detection-store")
        try replaceSettings(in: directory, edit: 0)
        store = JSONFileStore(url: URL(filePath: directory.path("settings.json")))
        let reference = store.reference(forKey: "edit", as: Int.self)
        precondition(reference.value == 0)
        let seen = seen, expected = expected
        token = reference.observe { value in
            if value == expected.withLock({ $0 }) { seen.signal() }
        }
    }

    /// - Parameter pause: how long to wait before each edit, outside the measured stretch.
    func measure(_ benchmark: Benchmark, pausingFirst pause: Duration = .zero) throws {
        for _ in benchmark.scaledIterations {
            edit += 1
            expected.withLock { [edit] in $0 = edit }
            if pause > .zero { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds)) }
            benchmark.startMeasurement()
            try replaceSettings(in: directory, edit: edit)
            seen.wait()
            benchmark.stopMeasurement()
        }
    }

    func tearDown() {
        token.cancel()
        directory.remove()
    }
}

final class InotifyEditFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let descriptor: Int32
    let seen = DispatchSemaphore(value: 0)
    let reader: Thread
    var edit = 0

    init() throws {
        directory = try TemporaryDirectory("change-detection-inotify")
        try replaceSettings(in: directory, edit: 0)
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        precondition(descriptor >= 0)
        precondition(inotify_add_watch(descriptor, directory.root, UInt32(IN_MOVED_TO)) >= 0)
        let descriptor = descriptor, seen = seen
        reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Each rename into the folder is one IN_MOVED_TO event. The thread blocks in read() for the
            // rest of the benchmark's process, which the plugin ends after the teardown.
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 { seen.signal() }
        }
        reader.start()
    }

    func measure(_ benchmark: Benchmark) throws {
        for _ in benchmark.scaledIterations {
            edit += 1
            benchmark.startMeasurement()
            try replaceSettings(in: directory, edit: edit)
            seen.wait()
            benchmark.stopMeasurement()
        }
    }

    func tearDown() {
        close(descriptor)
        directory.remove()
    }
}
#endif
