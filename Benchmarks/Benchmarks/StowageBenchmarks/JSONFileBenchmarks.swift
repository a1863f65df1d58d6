import Benchmark
import Configuration
import Foundation
import StowageInMemory
import StowageJSONFile

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Groups 6 to 9: `JSONFileStore`. Every file lives in a directory of its own
/// under /tmp (on this machine, the disk: ext4), made in the benchmark's setup
/// and removed in its teardown. The plugin runs each benchmark in a process of
/// its own, so setup state never leaks from one benchmark to another.
func registerJSONFileBenchmarks() {
    registerJSONFileOpenBenchmarks()
    registerJSONFileFlushBenchmarks()
    registerJSONFileSetterBenchmarks()
    registerJSONFileWrapperReadBenchmarks()
}

/// What a benchmark's setup makes and its closure and teardown use. The plugin
/// calls the three one after another, never at once.
final class SetupState<Value>: @unchecked Sendable {
    var value: Value?
    var unwrapped: Value { value! }
}

/// One call per sample, measured by hand around the part that counts.
private var fileConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
}

// MARK: - 6 Opening

/// Target 6: opening a 10,000-key file is at least 2x faster than
/// `JSONSerialization.jsonObject(with:)` on the same bytes already in memory.
///
/// Stores opened on the same path and options share one state, so each sample
/// writes the bytes to a new file name first (outside the measured region; the
/// file is then in the page cache, as a settings file read at launch usually
/// is) and removes it after. The measured region is `JSONFileStore(url:options:)`
/// alone: listing the directory for abandoned temporary files, `stat`, reading
/// the file, parsing it, checking write permission, and building the state.
/// Each result is kept until the measurement stops, so no side pays for freeing.
func registerJSONFileOpenBenchmarks() {
    struct Fixture {
        var directory: TemporaryDirectory
        var bytes: Data
        var template: String
        var opened = 0
    }
    func setUp(_ state: SetupState<Fixture>) throws {
        let directory = try TemporaryDirectory("open")
        let bytes = try JSONFileFixture.fileBytes(in: directory)
        state.value = Fixture(directory: directory, bytes: bytes, template: directory.path("fixture-10000.json"))
    }
    func open(_ benchmark: Benchmark, _ state: SetupState<Fixture>, options: JSONFileStore.Options) throws {
        state.value!.opened += 1
        let fixture = state.unwrapped
        // A directory per sample, so the store's directory listing sees one file.
        let directory = fixture.directory.path("sample-\(fixture.opened)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let url = URL(filePath: directory + "/settings.json")
        try fixture.bytes.write(to: url)
        benchmark.startMeasurement()
        let store = JSONFileStore(url: url, options: options)
        benchmark.stopMeasurement()
        let listed = try store.snapshot().entries.count
        precondition(listed == JSONFileFixture.keyCount && store.lastError == nil)
        try FileManager.default.removeItem(atPath: directory)
    }

    let store = SetupState<Fixture>()
    Benchmark(
        "6a Open 10,000-key file - Stowage JSONFileStore(url:options:), no change detection",
        configuration: fileConfiguration,
        closure: { benchmark in try open(benchmark, store, options: JSONFileFixture.quietOptions) },
        setup: { try setUp(store) },
        teardown: { store.value?.directory.remove() }
    )

    let storeDefaults = SetupState<Fixture>()
    Benchmark(
        "6e Open 10,000-key file - Stowage JSONFileStore(url:), default options",
        configuration: fileConfiguration,
        closure: { benchmark in try open(benchmark, storeDefaults, options: JSONFileStore.Options()) },
        setup: { try setUp(storeDefaults) },
        teardown: { storeDefaults.value?.directory.remove() }
    )

    let serialization = SetupState<Fixture>()
    Benchmark(
        "6b Open 10,000-key file - baseline JSONSerialization.jsonObject(with:), bytes in memory",
        configuration: fileConfiguration,
        closure: { benchmark in
            let bytes = serialization.unwrapped.bytes
            benchmark.startMeasurement()
            let object = try JSONSerialization.jsonObject(with: bytes)
            benchmark.stopMeasurement()
            blackHole(object)
        },
        setup: { try setUp(serialization) },
        teardown: { serialization.value?.directory.remove() }
    )

    let serializationFromFile = SetupState<Fixture>()
    Benchmark(
        "6d Open 10,000-key file - context Data(contentsOf:) + JSONSerialization.jsonObject(with:)",
        configuration: fileConfiguration,
        closure: { benchmark in
            let url = URL(filePath: serializationFromFile.unwrapped.template)
            benchmark.startMeasurement()
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
            benchmark.stopMeasurement()
            blackHole(object)
        },
        setup: { try setUp(serializationFromFile) },
        teardown: { serializationFromFile.value?.directory.remove() }
    )

    // FileProvider has no shared state, so it reads the same file every sample.
    let configuration = SetupState<Fixture>()
    Benchmark(
        "6c Open 10,000-key file - context swift-configuration FileProvider<JSONSnapshot>",
        configuration: fileConfiguration,
        closure: { benchmark in
            // Its `filePath:` initialiser takes a SystemPackage `FilePath`; this one reads the path from a reader.
            let path = configuration.unwrapped.template
            let reader = ConfigReader(provider: InMemoryProvider(values: ["filePath": ConfigValue(.string(path), isSecret: false)]))
            benchmark.startMeasurement()
            let provider = try await FileProvider<JSONSnapshot>(config: reader)
            benchmark.stopMeasurement()
            blackHole(provider)
        },
        setup: { try setUp(configuration) },
        teardown: { configuration.value?.directory.remove() }
    )
}

// MARK: - 7 Flushing

/// Target 7: a flush of the 10,000-key file (sorted keys, pretty-printed) is
/// at least 5x faster than `JSONEncoder` with `[.sortedKeys, .prettyPrinted]`
/// encoding the same content as `[String: CodableJSONValue]`.
///
/// The flush is the whole durable write, so it includes more than the
/// baseline: the `flock`, a `stat` to see whether another process changed the
/// file, serialising every key, writing a temporary file, `fsync`, `rename`
/// and `fsync` of the directory. The baseline only encodes into memory. 7c
/// measures the file-system part alone on the same bytes, so 7a minus 7c is
/// about what serialising costs.
func registerJSONFileFlushBenchmarks() {
    struct Fixture {
        var directory: TemporaryDirectory
        var store: JSONFileStore
        var bytes: Data
        var sample = 0
    }
    func setUp(_ state: SetupState<Fixture>) throws {
        let directory = try TemporaryDirectory("flush")
        let bytes = try JSONFileFixture.fileBytes(in: directory)
        let path = directory.path("settings.json")
        try bytes.write(to: URL(filePath: path))
        let store = JSONFileStore(url: URL(filePath: path), options: JSONFileFixture.quietOptions)
        state.value = Fixture(directory: directory, store: store, bytes: bytes)
    }

    let oneChange = SetupState<Fixture>()
    Benchmark(
        "7a Flush 10,000-key file - Stowage flush() after one change, to disk with fsync",
        configuration: fileConfiguration,
        closure: { benchmark in
            oneChange.value!.sample += 1
            let fixture = oneChange.unwrapped
            try fixture.store.set(fixture.sample, forKey: JSONFileFixture.key(0))
            benchmark.startMeasurement()
            try fixture.store.flush()
            benchmark.stopMeasurement()
        },
        setup: { try setUp(oneChange) },
        teardown: { oneChange.value?.directory.remove() }
    )

    let everyChange = SetupState<Fixture>()
    Benchmark(
        "7e Flush 10,000-key file - Stowage flush() after changing all 10,000 keys, to disk with fsync",
        configuration: fileConfiguration,
        closure: { benchmark in
            everyChange.value!.sample += 1
            let fixture = everyChange.unwrapped
            // Every key gets a new value of the same kind and about the same size
            // (the value 20 further on), so the file keeps its size.
            let shift = fixture.sample % 2 == 1 ? 20 : 0
            for index in 0..<JSONFileFixture.keyCount {
                try fixture.store.set(JSONFileFixture.value(index + shift), forKey: JSONFileFixture.key(index))
            }
            benchmark.startMeasurement()
            try fixture.store.flush()
            benchmark.stopMeasurement()
        },
        setup: { try setUp(everyChange) },
        teardown: { everyChange.value?.directory.remove() }
    )

    let encoder = SetupState<[String: CodableJSONValue]>()
    Benchmark(
        "7b Flush 10,000-key file - baseline JSONEncoder [.sortedKeys, .prettyPrinted], memory only",
        configuration: fileConfiguration,
        closure: { benchmark in
            let document = encoder.unwrapped
            let jsonEncoder = JSONEncoder()
            jsonEncoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            benchmark.startMeasurement()
            let data = try jsonEncoder.encode(document)
            benchmark.stopMeasurement()
            blackHole(data)
        },
        setup: { encoder.value = JSONFileFixture.document.mapValues(CodableJSONValue.init) }
    )

    // The same encoder on `StoredValue`'s own Codable conformance, which goes
    // through a keyed container with a coding key per member.
    let storedValueEncoder = SetupState<[String: StoredValue]>()
    Benchmark(
        "7f Flush 10,000-key file - context JSONEncoder [.sortedKeys, .prettyPrinted] on [String: StoredValue], memory only",
        configuration: fileConfiguration,
        closure: { benchmark in
            let document = storedValueEncoder.unwrapped
            let jsonEncoder = JSONEncoder()
            jsonEncoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            benchmark.startMeasurement()
            let data = try jsonEncoder.encode(document)
            benchmark.stopMeasurement()
            blackHole(data)
        },
        setup: { storedValueEncoder.value = JSONFileFixture.document }
    )

    let serialization = SetupState<[String: Any]>()
    Benchmark(
        "7d Flush 10,000-key file - context JSONSerialization.data [.sortedKeys, .prettyPrinted], memory only",
        configuration: fileConfiguration,
        closure: { benchmark in
            let document = serialization.unwrapped
            benchmark.startMeasurement()
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted])
            benchmark.stopMeasurement()
            blackHole(data)
        },
        setup: { serialization.value = JSONFileFixture.document.mapValues(\.foundationObject) }
    )

    let fileSystem = SetupState<Fixture>()
    Benchmark(
        "7c Flush 10,000-key file - context the file-system part alone: write temporary, fsync, rename, fsync directory",
        configuration: fileConfiguration,
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

/// The steps `JSONFileStore` takes to replace a file, without the store:
/// a new temporary file beside it, write, `fsync`, `rename` over the file, `fsync` of the directory.
func replaceDurably(_ path: String, with bytes: Data) throws {
    struct Failure: Error { var operation: String; var code: Int32 }
    let temporary = path + ".tmp-benchmark"
    let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard file >= 0 else { throw Failure(operation: "open", code: errno) }
    let written = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw Failure(operation: "write", code: errno) }
    guard fsync(file) == 0 else { throw Failure(operation: "fsync", code: errno) }
    close(file)
    guard rename(temporary, path) == 0 else { throw Failure(operation: "rename", code: errno) }
    let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { throw Failure(operation: "open directory", code: errno) }
    defer { close(directory) }
    guard fsync(directory) == 0 else { throw Failure(operation: "fsync directory", code: errno) }
}

// MARK: - 8 Many setters, one flush

/// Target 8: 100,000 setter calls spread over 1,000 keys, then one `flush()`,
/// take less than 0.5 s in all. The store has its default options (writes
/// coalesced within 100 ms, automatic change detection), so background
/// writes happen during the setters as they would in an application; the
/// figure is the wall-clock time from the first setter to `flush()` returning.
/// 8c spreads the same calls over 100,000 keys, beside the same work by hand
/// (8d), to show what a setter costs as the file grows.
func registerJSONFileSetterBenchmarks() {
    let keys = 1_000
    let calls = 100_000
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 50
    )
    struct Fixture {
        var directory: TemporaryDirectory
        var store: JSONFileStore
        var sample = 0
    }
    func makeFixture(name: String) throws -> Fixture {
        let directory = try TemporaryDirectory(name)
        let store = JSONFileStore(url: URL(filePath: directory.path("settings.json")))
        return Fixture(directory: directory, store: store)
    }

    // As an application writes: one `@JSONFileStorage` property per key, made
    // beforehand. 8c spreads the same calls over 100,000 keys: each key
    // changes once, so the flush writes every value (3 MB) where 8a's writes 1,000.
    func registerWrapperSetters(_ name: String, keys: Int, fixtureName: String) {
        let wrappers = SetupState<(Fixture, [JSONFileStorage<Int>])>()
        Benchmark(
            name,
            configuration: configuration,
            closure: { benchmark in
                wrappers.value!.0.sample += 1
                let (fixture, properties) = wrappers.unwrapped
                let base = fixture.sample * calls
                benchmark.startMeasurement()
                for index in 0..<calls {
                    properties[index % keys].wrappedValue = base + index
                }
                try fixture.store.flush()
                benchmark.stopMeasurement()
            },
            setup: {
                let fixture = try makeFixture(name: fixtureName)
                let properties = (0..<keys).map { JSONFileStorage<Int>(wrappedValue: 0, "key\($0)", in: fixture.store) }
                wrappers.value = (fixture, properties)
            },
            teardown: { wrappers.value?.0.directory.remove() }
        )
    }
    registerWrapperSetters("8a 100,000 setters over 1,000 keys + flush() - Stowage @JSONFileStorage wrappers", keys: keys, fixtureName: "setters-wrappers")

    // Without live references: each call looks up (and makes) the key's reference.
    let bare = SetupState<(Fixture, [String])>()
    Benchmark(
        "8b 100,000 setters over 1,000 keys + flush() - Stowage store.set(_:forKey:), no live references",
        configuration: configuration,
        closure: { benchmark in
            bare.value!.0.sample += 1
            let (fixture, names) = bare.unwrapped
            let base = fixture.sample * calls
            benchmark.startMeasurement()
            for index in 0..<calls {
                try fixture.store.set(base + index, forKey: names[index % keys])
            }
            try fixture.store.flush()
            benchmark.stopMeasurement()
        },
        setup: {
            bare.value = (try makeFixture(name: "setters-bare"), (0..<keys).map { "key\($0)" })
        },
        teardown: { bare.value?.0.directory.remove() }
    )

    let manyKeys = 100_000
    registerWrapperSetters(
        "8c 100,000 setters over 100,000 keys + flush() - Stowage @JSONFileStorage wrappers", keys: manyKeys, fixtureName: "setters-wide")

    // By hand: a Mutex-guarded dictionary written 100,000 times, then the whole
    // file formatted by JSONSerialization (keys sorted, as the store writes
    // them) and replaced durably, as 7c does.
    let handWritten = SetupState<(TemporaryDirectory, LockedDictionary, [String])>()
    Benchmark(
        "8d 100,000 setters over 100,000 keys + flush() - baseline Mutex dictionary, then JSONSerialization and a durable replace",
        configuration: configuration,
        closure: { benchmark in
            let (directory, dictionary, names) = handWritten.unwrapped
            benchmark.startMeasurement()
            for index in 0..<calls {
                dictionary.setValue(index, forKey: names[index % manyKeys])
            }
            let bytes = try JSONSerialization.data(withJSONObject: dictionary.copy(), options: [.sortedKeys, .prettyPrinted])
            try replaceDurably(directory.path("settings.json"), with: bytes)
            benchmark.stopMeasurement()
        },
        setup: {
            let names = (0..<manyKeys).map { "key\($0)" }
            handWritten.value = (try TemporaryDirectory("setters-by-hand"), LockedDictionary(Dictionary(uniqueKeysWithValues: names.map { ($0, 0) })), names)
        },
        teardown: { handWritten.value?.0.remove() }
    )
}

// MARK: - 9 Wrapper reads

/// Target 9: a wrapper read on a `JSONFileStore` costs the same as one on an
/// `InMemoryStore` (1a): both are the reference's cached read, and the store
/// is not asked. 9b repeats 1a so that the group's filter shows both.
func registerJSONFileWrapperReadBenchmarks() {
    struct FileSettings: Sendable {
        @JSONFileStorage var launchCount: Int

        init(store: JSONFileStore) {
            _launchCount = JSONFileStorage(wrappedValue: 0, "launchCount", in: store)
        }
    }
    let state = SetupState<(TemporaryDirectory, FileSettings)>()
    Benchmark(
        "9a Wrapper read - Stowage @JSONFileStorage settings.launchCount",
        closure: { benchmark in
            let settings = state.unwrapped.1
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(settings.launchCount)
            }
        },
        setup: {
            let directory = try TemporaryDirectory("wrapper-read")
            let store = JSONFileStore(url: URL(filePath: directory.path("settings.json")), options: JSONFileFixture.quietOptions)
            let settings = FileSettings(store: store)
            settings.launchCount = 41
            try store.flush()
            state.value = (directory, settings)
        },
        teardown: { state.value?.0.remove() }
    )

    Benchmark("9b Wrapper read - Stowage @InMemoryStorage settings.launchCount (as 1a)") { benchmark in
        let settings = Settings()
        settings.launchCount = 41
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(settings.launchCount)
        }
    }
}
