import Benchmark
import Dispatch
import Foundation
import StowageFlags
import StowageLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Group 13: feature flags (`StowageFlags`). A flag read beside a wrapper
/// read (1a, repeated here), a remote update of 1,000 flags and the listing
/// of 1,000 flags beside a hand-rolled flag system (`HandRolledFlags`), and
/// how soon an override written by another process reaches a flag's
/// observer, beside the inotify floor of group 12 (repeated here). The plugin
/// runs each benchmark in a process of its own, so each opens its own pole.
func registerFlagBenchmarks() {
    registerFlagReadBenchmarks()
    registerFlagUpdateBenchmarks()
    registerFlagListingBenchmarks()
    registerFlagExternalOverrideBenchmarks()
    registerFlagTargetingBenchmarks()
}

// MARK: - 13a–13e, 13n Reads

/// Target 13 (reads): a flag read through the pole costs at most 1.5x a
/// wrapper read (13b, as 1a). Every flag holds a remote value, set in the setup.
func registerFlagReadBenchmarks() {
    let poleState = SetupState<FlagPole<AppFlags>>()
    func setUp() throws {
        let flags = try FlagPole(AppFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
        let result = try flags.update(with: Data(#"{"new-checkout": true, "rate-limit": 250, "search": {"vector-index": true}}"#.utf8))
        precondition(result.changedKeys == ["new-checkout", "rate-limit", "search.vector-index"] && result.rejected.isEmpty)
        precondition(flags.newCheckout && flags.rateLimit == 250 && flags.search.vectorIndex)
        poleState.value = flags
    }

    Benchmark(
        "13a Flags read - Stowage flags.newCheckout, a Bool flag",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(flags.newCheckout)
            }
        },
        setup: setUp
    )

    Benchmark("13b Flags read - baseline @InMemoryStorage settings.launchCount (as 1a)") { benchmark in
        let settings = Settings()
        settings.launchCount = 41
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(settings.launchCount)
        }
    }

    Benchmark(
        "13c Flags read - Stowage flags.rateLimit, an Int flag",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(flags.rateLimit)
            }
        },
        setup: setUp
    )

    Benchmark(
        "13d Flags read - Stowage flags.search.vectorIndex, a Bool flag in a group",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(flags.search.vectorIndex)
            }
        },
        setup: setUp
    )

    // Reading `flags.block3.flag5` copies the group's value, `FlagBlock`, out
    // of the container: 100 flags, so its cost shows what copying a group costs.
    let thousandState = SetupState<FlagPole<ThousandFlags>>()
    Benchmark(
        "13n Flags read - context flags.block3.flag5, an Int flag in a group of 100 flags",
        closure: { benchmark in
            let flags = thousandState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(flags.block3.flag5)
            }
        },
        setup: { thousandState.value = try makeThousandFlagsFixture(remote: InMemoryStore()).system }
    )

    Benchmark("13e Flags read - context Mutex-guarded class property (as 1b)") { benchmark in
        let counter = LockedCounter(41)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(counter.read())
        }
    }
}

// MARK: - 13f–13h Remote updates

/// One operation per sample, measured by hand around the part that counts.
private var flagBulkConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
}

/// What the update benchmarks share: the two payloads, and which one the
/// next sample applies (each sample applies the other one, so every flag changes).
final class FlagUpdateFixture<System>: @unchecked Sendable {
    let system: System
    let payloads: [Data]
    var next = 1
    let directory: TemporaryDirectory?

    init(system: System, payloads: [Data], directory: TemporaryDirectory? = nil) {
        self.system = system
        self.payloads = payloads
        self.directory = directory
    }

    /// The payload for this sample; the one after it is the other.
    func takePayload() -> Data {
        defer { next = 1 - next }
        return payloads[next]
    }
}

/// Opens a pole of `ThousandFlags` on `remote`, applies payload 0 and checks
/// that all 1,000 flags read it.
private func makeThousandFlagsFixture(remote: any UnderlyingStorage, directory: TemporaryDirectory? = nil) throws -> FlagUpdateFixture<FlagPole<ThousandFlags>>
{
    let flags = try FlagPole(ThousandFlags(), overrides: InMemoryStore(), remote: remote)
    precondition(flags.definitions.count == FlagPayloadFixture.flagCount)
    let payloads = try [0, 1].map { try FlagPayloadFixture.payload($0, for: flags.definitions) }
    let result = try flags.update(with: payloads[0])
    precondition(result.changedKeys.count == FlagPayloadFixture.flagCount && result.rejected.isEmpty)
    precondition(flags.block0.flag0 && flags.block9.flag99 == "variant a of flag 999" && flags.block3.flag5 == 1_305)
    return FlagUpdateFixture(system: flags, payloads: payloads, directory: directory)
}

/// Target 13 (updates): none set; `update(with:)` of a 1,000-flag payload,
/// beside what a hand-rolled flag system does with the same bytes. The
/// payload is 27 KB of flat keys and changes every flag each sample.
func registerFlagUpdateBenchmarks() {
    let stowage = SetupState<FlagUpdateFixture<FlagPole<ThousandFlags>>>()
    Benchmark(
        "13f Flags update, 1,000 flags - Stowage flags.update(with:), InMemoryStore remote",
        configuration: flagBulkConfiguration,
        closure: { benchmark in
            let fixture = stowage.unwrapped
            let payload = fixture.takePayload()
            benchmark.startMeasurement()
            let result = try fixture.system.update(with: payload)
            benchmark.stopMeasurement()
            precondition(result.changedKeys.count == FlagPayloadFixture.flagCount)
        },
        setup: { stowage.value = try makeThousandFlagsFixture(remote: InMemoryStore()) }
    )

    let handRolled = SetupState<FlagUpdateFixture<HandRolledFlags>>()
    Benchmark(
        "13g Flags update, 1,000 flags - baseline JSONSerialization + a cast per value + Mutex<[String: any Sendable]>",
        configuration: flagBulkConfiguration,
        closure: { benchmark in
            let fixture = handRolled.unwrapped
            let payload = fixture.takePayload()
            benchmark.startMeasurement()
            let accepted = try fixture.system.update(with: payload)
            benchmark.stopMeasurement()
            precondition(accepted == FlagPayloadFixture.flagCount)
        },
        setup: {
            // The same table and payloads as 13f's pole, from its definitions.
            let flags = try FlagPole(ThousandFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
            let system = HandRolledFlags(flags.definitions)
            let payloads = try [0, 1].map { try FlagPayloadFixture.payload($0, for: flags.definitions) }
            let accepted = try system.update(with: payloads[0])
            precondition(accepted == FlagPayloadFixture.flagCount)
            handRolled.value = FlagUpdateFixture(system: system, payloads: payloads)
        }
    )

    // A remote store that keeps the last payload across restarts: the update,
    // then `flush()` writes the 1,001-key file (with fsync) before the clock stops.
    let durable = SetupState<FlagUpdateFixture<FlagPole<ThousandFlags>>>()
    Benchmark(
        "13h Flags update, 1,000 flags - context flags.update(with:) + flush(), JSONFileStore remote",
        configuration: flagBulkConfiguration,
        closure: { benchmark in
            let fixture = durable.unwrapped
            let payload = fixture.takePayload()
            benchmark.startMeasurement()
            let result = try fixture.system.update(with: payload)
            try (fixture.system.remote as? JSONFileStore)?.flush()
            benchmark.stopMeasurement()
            precondition(result.changedKeys.count == FlagPayloadFixture.flagCount)
        },
        setup: {
            let directory = try TemporaryDirectory("flag-update")
            let remote = JSONFileStore(url: URL(filePath: directory.path("remote.json")), options: JSONFileFixture.quietOptions)
            durable.value = try makeThousandFlagsFixture(remote: remote, directory: directory)
            try remote.flush()
        },
        teardown: { durable.value?.directory?.remove() }
    )
}

// MARK: - 13i–13j Listing

/// Target 13 (listing): none set; `flags.all` of 1,000 flags, beside building
/// 1,000 (key, description, value) structs from the hand-rolled system's
/// locked dictionary. Every flag holds a remote value; 10 also have an override.
func registerFlagListingBenchmarks() {
    let stowage = SetupState<FlagPole<ThousandFlags>>()
    Benchmark(
        "13i Flags listing, 1,000 flags - Stowage flags.all",
        configuration: flagBulkConfiguration,
        closure: { benchmark in
            let flags = stowage.unwrapped
            benchmark.startMeasurement()
            let states = flags.all
            benchmark.stopMeasurement()
            precondition(states.count == FlagPayloadFixture.flagCount)
        },
        setup: {
            let flags = try makeThousandFlagsFixture(remote: InMemoryStore()).system
            for block in 0..<10 {
                try flags.override(key: "block\(block).flag\(block * 10)", with: .bool(false))
            }
            let states = flags.all
            precondition(states.filter { $0.origin == .override }.count == 10 && states.filter { $0.origin == .remote }.count == 990)
            stowage.value = flags
        }
    )

    let handRolled = SetupState<HandRolledFlags>()
    Benchmark(
        "13j Flags listing, 1,000 flags - baseline 1,000 (key, description, value) structs from a Mutex<[String: any Sendable]>",
        configuration: flagBulkConfiguration,
        closure: { benchmark in
            let system = handRolled.unwrapped
            benchmark.startMeasurement()
            let states = system.all()
            benchmark.stopMeasurement()
            precondition(states.count == FlagPayloadFixture.flagCount)
        },
        setup: {
            let flags = try FlagPole(ThousandFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
            let system = HandRolledFlags(flags.definitions)
            let accepted = try system.update(with: FlagPayloadFixture.payload(0, for: flags.definitions))
            precondition(accepted == FlagPayloadFixture.flagCount)
            handRolled.value = system
        }
    )
}

// MARK: - 13k–13m Override written by another process

/// Target 13 (external override): none set (report); how soon an override
/// another process writes reaches `flags.observe(\.rateLimit)`, with the
/// overrides in a `JSONFileStore` (default options: inotify on the folder,
/// plus the 1 s poll). Each sample replaces the overrides file as a tool or
/// another instance of the program does (write `overrides.json.tmp`, rename
/// it over `overrides.json`), with a new `rate-limit`, and waits for the
/// observer; the write and the rename are inside the measured region. 13l
/// and 13m are 12b and 12a, repeated so that one run shows all three.
func registerFlagExternalOverrideBenchmarks() {
    #if os(Linux)
    let flagState = SetupState<FlagOverrideEditFixture>()
    Benchmark(
        "13k Flags external override to observer - Stowage flags.observe(\\.rateLimit), overrides file replaced by rename",
        configuration: editConfiguration,
        closure: { benchmark in try flagState.unwrapped.measure(benchmark) },
        setup: { flagState.value = try FlagOverrideEditFixture() },
        teardown: { flagState.value?.tearDown() }
    )

    // As 12c: each override after 10 ms without one, as a person or a tool makes it.
    let quietFlagState = SetupState<FlagOverrideEditFixture>()
    Benchmark(
        "13o Flags external override to observer - Stowage flags.observe(\\.rateLimit), each override after 10 ms without one",
        configuration: editConfiguration,
        closure: { benchmark in try quietFlagState.unwrapped.measure(benchmark, pausingFirst: .milliseconds(10)) },
        setup: { quietFlagState.value = try FlagOverrideEditFixture() },
        teardown: { quietFlagState.value?.tearDown() }
    )

    let inotifyState = SetupState<InotifyEditFixture>()
    Benchmark(
        "13l Flags external override to observer - baseline the inotify event for a rename (as 12b)",
        configuration: editConfiguration,
        closure: { benchmark in try inotifyState.unwrapped.measure(benchmark) },
        setup: { inotifyState.value = try InotifyEditFixture() },
        teardown: { inotifyState.value?.tearDown() }
    )

    let storeState = SetupState<StoreEditFixture>()
    Benchmark(
        "13m Flags external override to observer - context JSONFileStore reference observer (as 12a)",
        configuration: editConfiguration,
        closure: { benchmark in try storeState.unwrapped.measure(benchmark) },
        setup: { storeState.value = try StoreEditFixture() },
        teardown: { storeState.value?.tearDown() }
    )
    #endif
}

#if os(Linux)
/// A pole of `AppFlags` whose overrides are a JSON file another process
/// replaces, and an observer of `rateLimit`.
final class FlagOverrideEditFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let flags: FlagPole<AppFlags>
    let token: ObservationToken
    let seen = DispatchSemaphore(value: 0)
    /// The edit the sample waits for; the observer runs on the store's monitor thread.
    let expected = Locked(0)
    var edit = 0

    init() throws {
        directory = try TemporaryDirectory("flag-external-override")
        try Self.replaceOverrides(in: directory, rateLimit: 0)
        flags = try FlagPole(AppFlags(), overrides: JSONFileStore(url: URL(filePath: directory.path("overrides.json"))), remote: InMemoryStore())
        precondition(flags.rateLimit == 0 && flags.newCheckout && flags.search.vectorIndex && flags.state(forKey: "rate-limit")?.origin == .override)
        let seen = seen, expected = expected
        token = flags.observe(\.rateLimit) { value in
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
            try Self.replaceOverrides(in: directory, rateLimit: edit)
            seen.wait()
            benchmark.stopMeasurement()
        }
    }

    func tearDown() {
        token.cancel()
        directory.remove()
    }

    /// Writes the overrides file, five flags overridden, `rate-limit` the one
    /// that changes, through a temporary file renamed into place.
    static func replaceOverrides(in directory: TemporaryDirectory, rateLimit: Int) throws {
        let text = #"{"new-checkout": true, "rate-limit": \#(rateLimit), "search.result-limit": 50, "search.vector-index": true, "theme": "dark"}"#
        try Data(text.utf8).write(to: URL(filePath: directory.path("overrides.json.tmp")))
        guard rename(directory.path("overrides.json.tmp"), directory.path("overrides.json")) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
#endif
