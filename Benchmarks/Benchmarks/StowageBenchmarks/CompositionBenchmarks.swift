import Benchmark
import Configuration
import StowageEnvironment
import StowageInMemory
import StowageLocking

/// Group 11: composition. A `LayeredStore` of three layers, the shape of a
/// service's configuration (the environment, then two in-memory layers, the
/// value in the last), a namespace, and snapshots. Every benchmark checks what
/// it read, on every read, so that nothing can be left out; its baseline does
/// the same check.
func registerCompositionBenchmarks() {
    registerLayeredReadBenchmarks()
    registerNamespaceBenchmarks()
    registerSnapshotBenchmarks()
}

/// The environment both hierarchies start with: variables a service sees,
/// none of them the key read. Made into an `EnvironmentStore(variables:)`
/// and an `EnvironmentVariablesProvider(environmentVariables:)`.
private let environmentVariables: [String: String] = [
    "HOME": "/home/app",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "en_US.UTF-8",
    "HOSTNAME": "app-7f9c4d",
    "LOG_LEVEL": "info",
    "NETWORK_TIMEOUT": "30",
    "DATABASE_HOST": "db.internal.example.com",
    "DATABASE_PORT": "5432",
]

/// The three layers, highest precedence first: the environment, overrides
/// (another key) and defaults, which alone hold `launchCount`.
private func makeLayeredStore() -> LayeredStore {
    let environment = EnvironmentStore(variables: environmentVariables)
    let overrides: InMemoryStore = ["userName": "Ada"]
    let defaults: InMemoryStore = ["launchCount": 41, "userName": "Grace"]
    return LayeredStore([.init("environment", environment), .init("overrides", overrides), .init("defaults", defaults)])
}

/// The same hierarchy in swift-configuration: a reader queries its providers
/// in order until one has the key.
private func makeConfigReader() -> ConfigReader {
    ConfigReader(providers: [
        EnvironmentVariablesProvider(environmentVariables: environmentVariables),
        InMemoryProvider(values: ["userName": "Ada"]),
        InMemoryProvider(values: ["launchCount": 41, "userName": "Grace"]),
    ])
}

/// A settings struct whose wrapper is on a store passed in, as a user writes
/// one for a store other than the module's default.
private struct StoreSettings<Storage: UnderlyingStorage>: Sendable {
    @Stored<Storage, Int> var launchCount: Int

    init(store: Storage) {
        _launchCount = Stored(wrappedValue: 0, "launchCount", in: store)
    }
}

// MARK: - 11a–11f Layered store

/// Target 11 (reads): a wrapper read through a `LayeredStore` is the core's
/// cached read, the same speed as a wrapper on any store (11a against 11b).
/// 11c–11f have no target: an uncached read and `origin(forKey:)` walk the
/// layers, and 11d and 11e show what that costs elsewhere.
func registerLayeredReadBenchmarks() {
    let layeredSettings = SetupState<StoreSettings<LayeredStore>>()
    Benchmark(
        "11a Layered wrapper read - Stowage @Stored in a LayeredStore of 3 layers, value in the last",
        closure: { benchmark in
            let settings = layeredSettings.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(settings.launchCount == 41)
            }
        },
        setup: {
            let settings = StoreSettings(store: makeLayeredStore())
            precondition(settings.launchCount == 41)
            layeredSettings.value = settings
        }
    )

    let plainSettings = SetupState<StoreSettings<InMemoryStore>>()
    Benchmark(
        "11b Layered wrapper read - baseline @Stored in a plain InMemoryStore",
        closure: { benchmark in
            let settings = plainSettings.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(settings.launchCount == 41)
            }
        },
        setup: {
            let settings = StoreSettings(store: ["launchCount": 41] as InMemoryStore)
            precondition(settings.launchCount == 41)
            plainSettings.value = settings
        }
    )

    let layered = SetupState<LayeredStore>()
    func setUpLayered() {
        let store = makeLayeredStore()
        precondition(try! store.value(forKey: "launchCount", as: Int.self) == 41)
        layered.value = store
    }

    // No reference is live, so every read asks the layers.
    Benchmark(
        "11c Layered uncached read - Stowage layered.value(forKey:as: Int.self), value in the last of 3 layers",
        closure: { benchmark in
            let store = layered.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try store.value(forKey: "launchCount", as: Int.self)
                precondition(value == 41)
            }
        },
        setup: setUpLayered
    )

    let readerState = SetupState<ConfigReader>()
    Benchmark(
        "11d Layered uncached read - baseline swift-configuration ConfigReader.int(forKey:) over 3 providers, value in the last",
        closure: { benchmark in
            let reader = readerState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(reader.int(forKey: "launchCount") == 41)
            }
        },
        setup: {
            let value = makeConfigReader()
            precondition(value.int(forKey: "launchCount") == 41 && value.string(forKey: "userName") == "Ada")
            readerState.value = value
        }
    )

    // What one layer costs: the same read on the defaults layer alone.
    let single = SetupState<InMemoryStore>()
    Benchmark(
        "11e Layered uncached read - context InMemoryStore.value(forKey:as: Int.self), one store",
        closure: { benchmark in
            let store = single.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try store.value(forKey: "launchCount", as: Int.self)
                precondition(value == 41)
            }
        },
        setup: { single.value = ["launchCount": 41, "userName": "Grace"] }
    )

    Benchmark(
        "11f Layered origin - Stowage layered.origin(forKey:), value in the last of 3 layers",
        closure: { benchmark in
            let store = layered.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(store.origin(forKey: "launchCount")?.store === store.layers[2].store)
            }
        },
        setup: {
            setUpLayered()
            precondition(layered.unwrapped.origin(forKey: "launchCount")?.name == "defaults")
        }
    )
}

// MARK: - 11g–11l Namespaces

/// No target: a reference made through `store.namespace("network")` is
/// expected to read as fast as one made on the store with the whole key (11g
/// against 11h). 11i–11l repeat the comparison without a live reference,
/// where the namespace builds the store's key on every read: 11i and 11j with
/// a 15-byte store key, 11k and 11l with a 33-byte one.
func registerNamespaceBenchmarks() {
    func makeStore() -> InMemoryStore {
        ["network.timeout": 30, "network.retries": 3, "launchCount": 41]
    }

    let namespaced = SetupState<StorageReference<LayeredStore, Int>>()
    Benchmark(
        "11g Namespace reference read - Stowage store.namespace(\"network\") reference to timeout",
        closure: { benchmark in
            let reference = namespaced.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(reference.value == 30)
            }
        },
        setup: {
            let reference = makeStore().namespace("network").reference(forKey: "timeout", as: Int.self)
            precondition(reference.value == 30)
            namespaced.value = reference
        }
    )

    let direct = SetupState<StorageReference<InMemoryStore, Int>>()
    Benchmark(
        "11h Namespace reference read - baseline store reference to network.timeout",
        closure: { benchmark in
            let reference = direct.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(reference.value == 30)
            }
        },
        setup: {
            let reference = makeStore().reference(forKey: "network.timeout", as: Int.self)
            precondition(reference.value == 30)
            direct.value = reference
        }
    )

    let namespace = SetupState<LayeredStore>()
    Benchmark(
        "11i Namespace uncached read, 15-byte key - Stowage namespace.value(forKey:as: Int.self)",
        closure: { benchmark in
            let network = namespace.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try network.value(forKey: "timeout", as: Int.self)
                precondition(value == 30)
            }
        },
        setup: { namespace.value = makeStore().namespace("network") }
    )

    let storeState = SetupState<InMemoryStore>()
    Benchmark(
        "11j Namespace uncached read, 15-byte key - baseline store.value(forKey: \"network.timeout\", as: Int.self)",
        closure: { benchmark in
            let store = storeState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try store.value(forKey: "network.timeout", as: Int.self)
                precondition(value == 30)
            }
        },
        setup: { storeState.value = makeStore() }
    )

    // Keys longer than 15 UTF-8 bytes are not small strings, so building the
    // store's key (`networkSettings.connectionTimeout`, 33 bytes) allocates.
    let longNamespace = SetupState<LayeredStore>()
    Benchmark(
        "11k Namespace uncached read, 33-byte key - Stowage namespace.value(forKey:as: Int.self)",
        closure: { benchmark in
            let network = longNamespace.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try network.value(forKey: "connectionTimeout", as: Int.self)
                precondition(value == 30)
            }
        },
        setup: { longNamespace.value = (["networkSettings.connectionTimeout": 30] as InMemoryStore).namespace("networkSettings") }
    )

    let longStore = SetupState<InMemoryStore>()
    Benchmark(
        "11l Namespace uncached read, 33-byte key - baseline store.value(forKey: \"networkSettings.connectionTimeout\", as: Int.self)",
        closure: { benchmark in
            let store = longStore.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let value = try store.value(forKey: "networkSettings.connectionTimeout", as: Int.self)
                precondition(value == 30)
            }
        },
        setup: { longStore.value = ["networkSettings.connectionTimeout": 30] }
    )
}

// MARK: - 11m–11o Snapshots

/// No target: `snapshot()` of a 1,000-key `InMemoryStore` is expected to cost
/// little more than copying a locked dictionary of the same entries (11n).
/// 11o is a namespace's snapshot, which does what the protocol's default does
/// for a store without its own: lists the entries and asks whether each key
/// is secret.
func registerSnapshotBenchmarks() {
    let storeState = SetupState<InMemoryStore>()
    let baselineState = SetupState<Locked<[String: StoredValue]>>()
    func setUp() {
        var entries: [String: StoredValue] = [:]
        for index in 0..<1_000 {
            entries["all.group\(index / 100).key\(index % 100)"] = index.isMultiple(of: 2) ? .signedInteger(Int64(index)) : .string("value \(index)")
        }
        storeState.value = InMemoryStore(entries)
        baselineState.value = Locked(entries)
    }

    // Both copies are copy-on-write: neither copies the 1,000 entries until
    // one side changes, which is what a snapshot of this store relies on.
    Benchmark(
        "11m Snapshot of 1,000 keys - Stowage InMemoryStore.snapshot()",
        closure: { benchmark in
            let store = storeState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(store.snapshot().entries.count == 1_000)
            }
        },
        setup: setUp
    )

    Benchmark(
        "11n Snapshot of 1,000 keys - baseline a copy of a Locked dictionary of the same entries",
        closure: { benchmark in
            let entries = baselineState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                precondition(entries.withLock { $0 }.count == 1_000)
            }
        },
        setup: setUp
    )

    Benchmark(
        "11o Snapshot of 1,000 keys - context a namespace's snapshot(), the namespace holding every key of the same store",
        closure: { benchmark in
            let namespace = storeState.unwrapped.namespace("all")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let count = try namespace.snapshot().entries.count
                precondition(count == 1_000)
            }
        },
        setup: setUp
    )
}
