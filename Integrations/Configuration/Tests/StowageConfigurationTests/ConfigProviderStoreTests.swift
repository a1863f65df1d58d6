import Foundation
import StowageConfiguration
import StowageInMemory
import StowageTesting
import Testing

/// A swift-configuration provider as a read-only Stowage store, with real providers.
struct ConfigProviderStoreTests {
    @Test(arguments: [ConformanceCheck.absentKeys, .referenceIdentity])
    func passesTheConformanceChecksThatApplyToAReadOnlyStore(_ check: ConformanceCheck) async throws {
        try await StorageConformanceSuite { ConfigProviderStore(InMemoryProvider(values: [:])) }.run(check)
    }

    @Test func asTheLowestLayerItLeavesALayeredStoreConforming() async throws {
        // Every check but the external change, which needs a way to change a key behind Stowage's back.
        let report = try await StorageConformanceSuite {
            LayeredStore([.init("memory", InMemoryStore()), .init("provider", ConfigProviderStore(InMemoryProvider(values: ["unrelated": 1])))])
        }.run()
        #expect(report.skipped.map(\.check) == [.externalChange])
    }

    @Test func typedReadsGiveTheProvidersValuesExactly() throws {
        let store = ConfigProviderStore(
            InMemoryProvider(values: [
                "limits.minimum": .init(.int(.min), isSecret: false), "limits.maximum": .init(.int(.max), isSecret: false),
                "ratio": .init(.double(-0.0), isSecret: false), "name": "Zoë 👩🏽‍💻", "enabled": true,
                "blob": .init(.bytes([]), isSecret: false), "hosts": .init(.stringArray([]), isSecret: false),
                "ports": .init(.intArray([80, 443]), isSecret: false), "checksums": .init(.byteChunkArray([[1], []]), isSecret: false),
            ]))
        #expect(try store.value(forKey: "limits.minimum", as: Int.self) == .min)
        #expect(try store.value(forKey: "limits.maximum", as: Int64.self) == Int64(Int.max))
        #expect(try store.value(forKey: "ratio", as: Double.self)?.bitPattern == (-0.0).bitPattern)
        #expect(try store.value(forKey: "name", as: String.self) == "Zoë 👩🏽‍💻")
        #expect(try store.value(forKey: "enabled", as: Bool.self) == true)
        #expect(try store.value(forKey: "blob", as: Data.self) == Data())
        #expect(try store.value(forKey: "hosts", as: [String].self) == [])
        #expect(try store.value(forKey: "ports", as: [Int].self) == [80, 443])
        #expect(try store.value(forKey: "checksums", as: [Data].self) == [Data([1]), Data()])
        #expect(try store.value(forKey: "absent", as: Int.self) == nil)
    }

    /// The environment provider answers `int` too, with 7: only asking for
    /// text first keeps what was written.
    @Test func anUntypedReadAsksForTextFirst() throws {
        let environment = ConfigProviderStore(EnvironmentVariablesProvider(environmentVariables: ["ZIP": "007"]))
        #expect(try environment.value(forKey: "zip", as: StoredValue.self) == .string("007"))
        let typed = ConfigProviderStore(InMemoryProvider(values: ["count": 7]))
        #expect(try typed.value(forKey: "count", as: StoredValue.self) == .signedInteger(7), "a provider that keeps types answers its own")
    }

    @Test func aProviderThatParsesTextIsAskedForTheTypeRead() throws {
        let environment = EnvironmentVariablesProvider(environmentVariables: [
            "HTTP_PORT": "8080", "VERBOSE": "true", "RATIO": "0.5", "HOSTS": "a,b", "ZIP": "007",
        ])
        let store = ConfigProviderStore(environment)
        #expect(try store.value(forKey: "http.port", as: Int.self) == 8080)
        #expect(try store.value(forKey: "http.port", as: UInt16.self) == 8080)
        #expect(try store.value(forKey: "http.port", as: String.self) == "8080")
        #expect(try store.value(forKey: "verbose", as: Bool.self) == true)
        #expect(try store.value(forKey: "ratio", as: Double.self) == 0.5)
        #expect(try store.value(forKey: "hosts", as: [String].self) == ["a", "b"])
        #expect(try store.value(forKey: "zip", as: String.self) == "007")
        let settings = ServerSettings(store: LayeredStore([.init("overrides", InMemoryStore()), .init("configuration", store)]))
        #expect(settings.port == 8080)
    }

    @Test func aValueOfAnotherTypeIsRefusedNamingTheKeyTypeAndProvider() throws {
        let store = ConfigProviderStore(InMemoryProvider(name: "defaults", values: ["timeout": .init(.double(1.5), isSecret: true)]))
        let error = try #require(throws: StorageError.self) { try store.value(forKey: "timeout", as: Int.self) }
        #expect(error.key == "timeout")
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("expected Int"), "\(error.message)")
        #expect(error.message.contains("InMemoryProvider[defaults] has no Int as its int either"), "\(error.message)")
        #expect(!error.message.contains("1.5"), "a refusal quoted a secret: \(error.message)")
    }

    @Test func writesAreRefusedAsReadOnlyNamingTheKey() throws {
        let store = ConfigProviderStore(InMemoryProvider(values: ["limit": 1]))
        #expect(!store.isDefaultWriteLayer)
        for write in [
            { try store.set(2, forKey: "limit") }, { try store.removeValue(forKey: "limit") },
            { try store.reference(forKey: "limit", as: Int.self).modify { $0 = 3 } },
        ] {
            let error = try #require(throws: StorageError.self) { try write() }
            #expect(error.code == .readOnly)
            #expect(error.key == "limit")
            #expect(error.message.contains("read-only"), "\(error.message)")
        }
        #expect(try store.value(forKey: "limit", as: Int.self) == 1)
    }

    @Test func aLayeredStoreWritesAboveIt() throws {
        let memory = InMemoryStore()
        let layered = LayeredStore([.init("provider", ConfigProviderStore(InMemoryProvider(values: ["retries": 3]))), .init("memory", memory)])
        #expect(try layered.value(forKey: "retries", as: Int.self) == 3)
        try layered.set(5, forKey: "other")
        #expect(try memory.value(forKey: "other", as: Int.self) == 5)
    }

    @Test func listingIsUnsupportedAndSaysWhy() throws {
        let store = ConfigProviderStore(InMemoryProvider(name: "defaults", values: ["a": 1]))
        let error = try #require(throws: StorageError.self) { try store.snapshot() }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("InMemoryProvider[defaults] can not be listed"), "\(error.message)")
    }

    @Test func secrecyIsTheProvidersAnswer() {
        let store = ConfigProviderStore(InMemoryProvider(values: ["api.token": .init(.string("t0k3n"), isSecret: true), "api.host": "example.com"]))
        #expect(store.isSecret(key: "api.token"))
        #expect(!store.isSecret(key: "api.host"))
        #expect(!store.isSecret(key: "absent"))
    }

    @Test func aProviderChangeReachesAStowageObserverAndWrapper() async throws {
        let provider = MutableInMemoryProvider(initialValues: ["http.port": 8080])
        let store = ConfigProviderStore(provider)
        let settings = ServerSettings(store: store)
        #expect(settings.port == 8080)
        let changes = settings.$port.changes
        #expect(try await firstElement(of: changes, waitingFor: "the current port") == 8080)
        provider.setValue(9090, forKey: ["http", "port"])
        #expect(try await firstElement(of: changes, waitingFor: "the changed port") == 9090)
        #expect(settings.port == 9090)
        provider.setValue(nil, forKey: ["http", "port"])
        #expect(try await firstElement(of: changes, waitingFor: "the default after removal") == 80)
    }

    /// A value read before the provider's watch began, and changed before
    /// its first snapshot, reaches the wrapper with that snapshot.
    @Test func aChangeBeforeTheWatchBeganReachesAWrapperReadBeforeIt() async throws {
        let provider = LateWatchingProvider(MutableInMemoryProvider(initialValues: ["http.port": 8080, "http.timeout": 30]))
        let store = ConfigProviderStore(provider)
        let settings = ServerSettings(store: store)
        #expect(settings.port == 8080)
        #expect(try store.value(forKey: "http.timeout", as: Int.self) == 30)
        let changes = settings.$port.changes
        #expect(try await firstElement(of: changes, waitingFor: "the current port") == 8080)
        provider.inner.setValue(9090, forKey: ["http", "port"])
        #expect(settings.port == 8080, "no watch yet, so nothing told the reference")
        provider.startWatching()
        #expect(try await firstElement(of: changes, waitingFor: "the port changed before the watch began") == 9090)
        #expect(settings.port == 9090)
    }

    @Test func aProviderChangeReachesTheStoresChangeStream() async throws {
        let provider = MutableInMemoryProvider(initialValues: [:])
        let store = ConfigProviderStore(provider)
        let changes = store.changes
        provider.setValue("on", forKey: ["mode"])
        _ = try await firstElement(of: changes, waitingFor: "a change of mode") { $0 == .key("mode") || $0 == .allKeys }
        #expect(try store.value(forKey: "mode", as: String.self) == "on")
    }
}

/// Settings as a program declares them, over any store.
struct ServerSettings<Store: UnderlyingStorage>: Sendable {
    @Stored<Store, Int> var port: Int

    init(store: Store) {
        _port = Stored(wrappedValue: 80, "http.port", in: store)
    }
}
