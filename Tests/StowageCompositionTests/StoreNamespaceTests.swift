import StowageEnvironment
import StowageInMemory
import StowageTestSupport
import Testing

struct StoreNamespaceTests {
    @Test func keysArePrefixedInTheBaseStore() throws {
        let base = InMemoryStore()
        let network = base.namespace("network")
        try network.set(30.0, forKey: "timeout")
        #expect(base.storedValue(forKey: "network.timeout", .granted) == 30.0)
        #expect(try network.value(forKey: "timeout", as: Double.self) == 30)
        #expect(base.namespace("network", separator: "-").layerKey(forKey: "timeout") == "network-timeout")
    }

    @Test func removeAllRemovesOnlyTheNamespace() throws {
        let base: InMemoryStore = ["network.timeout": 30, "network.retries": 3, "networking": 1, "ui.theme": "dark", "network": 5]
        try base.namespace("network").removeAll()
        #expect(base.snapshot() == ["networking": 1, "ui.theme": "dark", "network": 5])
    }

    @Test func namespacesOfOneStoreAreIsolated() throws {
        let base = InMemoryStore()
        let network = base.namespace("network"), ui = base.namespace("ui")
        try network.set(1, forKey: "level")
        try ui.set(2, forKey: "level")
        #expect(try network.value(forKey: "level", as: Int.self) == 1)
        #expect(try ui.value(forKey: "level", as: Int.self) == 2)
        #expect(try network.storedEntries(.granted) == ["level": 1])
        #expect(try network.namespace("http").storedEntries(.granted).isEmpty)
    }

    @Test func observingTheNamespaceSeesOnlyItsKeys() throws {
        let base = InMemoryStore()
        let network = base.namespace("network")
        let changes = Collected<StoreChange>()
        let token = network.observe { changes.append($0) }
        try base.set(1, forKey: "ui.theme")
        try base.set(2, forKey: "network.timeout")
        try network.set(3, forKey: "retries")
        #expect(Set(changes.all) == [.key("timeout"), .key("retries")])
        _ = token
    }

    @Test func writesThroughEitherSideReachTheOthersReferences() throws {
        let base = InMemoryStore()
        let network = base.namespace("network")
        let inNamespace = network.reference(forKey: "timeout", as: Int.self)
        let inBase = base.reference(forKey: "network.timeout", as: Int.self)
        #expect(inNamespace.value == nil && inBase.value == nil)
        try inBase.set(5)
        #expect(inNamespace.value == 5)
        try inNamespace.set(6)
        #expect(inBase.value == 6)
    }

    @Test func aNamespaceOfTheEnvironmentMapsToPrefixedVariables() throws {
        let environment = EnvironmentStore(variables: ["NETWORK_TIMEOUT": "45", "NETWORK_API_TOKEN": "x"])
        let network = environment.namespace("network")
        #expect(try network.value(forKey: "timeout", as: Int.self) == 45)
        #expect(network.isSecret(key: "apiToken"))
        #expect(!network.isSecret(key: "timeout"))
    }

    @Test func aNamespaceOfALayeredStoreReadsItsLayersAndWritesItsWriteLayer() throws {
        let overrides = InMemoryStore(["network.timeout": 5]), file = InMemoryStore(["network.timeout": 30, "network.retries": 2])
        let settings = LayeredStore([LayeredStore.Layer("overrides", overrides), LayeredStore.Layer("file", file)], writingTo: .store(file))
        let network = settings.namespace("network")
        #expect(try network.value(forKey: "timeout", as: Int.self) == 5)
        #expect(network.origin(forKey: "retries")?.name == "file")
        try network.set(3, forKey: "retries")
        #expect(file.storedValue(forKey: "network.retries", .granted) == 3)
        #expect(overrides.storedValue(forKey: "network.retries", .granted) == nil)
        let snapshot = try network.snapshot()
        #expect(snapshot == ["timeout": 5, "retries": 3])
        #expect(snapshot.origins == ["timeout": "overrides", "retries": "file"])
        #expect(network.storeName == "Namespace(\"network.\" in LayeredStore(overrides, file))")

        let strict = LayeredStore(settings.layers, writingTo: .store(file), shadowedWrites: .fail).namespace("network")
        let refusal = #expect(throws: StorageError.self) { try strict.set(6, forKey: "timeout") }
        #expect(refusal?.key == "network.timeout", "named as the layers hold it")
    }

    @Test func aNamespaceOfANamespaceIsOnePrefixOverTheSameStore() throws {
        let base = InMemoryStore()
        let http = base.namespace("network").namespace("http")
        try http.set(8080, forKey: "port")
        #expect(base.storedValue(forKey: "network.http.port", .granted) == 8080)
        #expect(http.layers.count == 1 && http.layers[0].store === base)
        #expect(http.storeName == "Namespace(\"network.http.\" in InMemoryStore)")
    }

    /// The environment does not take a layered store's writes by default; a
    /// namespace of it writes to it all the same, as a write to the store would.
    @Test func aNamespaceWritesToAStoreThatIsNoDefaultWriteLayer() throws {
        let environment = EnvironmentStore(variables: ["NETWORK_TIMEOUT": "45"])
        #expect(!environment.isDefaultWriteLayer)
        let network = environment.namespace("network")
        try network.set(50, forKey: "timeout")
        #expect(try environment.value(forKey: "network.timeout", as: Int.self) == 50)
    }

    @Test func removeAllOfALayeredStoreEmptiesItsWriteLayerOnly() throws {
        let defaults = InMemoryStore(["theme": "light"]), file = InMemoryStore(["theme": "dark", "volume": 3])
        let settings = LayeredStore([LayeredStore.Layer("file", file), LayeredStore.Layer("defaults", defaults)], writingTo: .store(file))
        try settings.removeAll()
        #expect(file.snapshot() == [:])
        #expect(try settings.snapshot() == ["theme": "light"])
        #expect(throws: StorageError.self) { try LayeredStore([defaults], writingTo: .none).removeAll() }
    }

    /// A null the store holds (a JSON file edited by hand) reads as absent; a
    /// compare-and-swap that expected nothing there failed on every try, so
    /// `modify` never returned.
    @Test func aNullTheStoreHoldsDoesNotStopAModify() throws {
        let base = InMemoryStore(["network.retries": .null])
        try base.namespace("network").reference(forKey: "retries", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        #expect(base.storedValue(forKey: "network.retries", .granted) == 1)

        let file = InMemoryStore(["retries": .null])
        let layered = LayeredStore([.init("overrides", InMemoryStore()), .init("file", file)], writingTo: .store(file))
        try layered.reference(forKey: "retries", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        #expect(file.storedValue(forKey: "retries", .granted) == 1)
    }

    /// A snapshot of a namespace decodes as the layer holds the key: the
    /// environment's error names `NETWORK_TIMEOUT`, the variable it read.
    @Test func aSnapshotOfANamespaceDecodesUnderTheLayersKey() throws {
        let environment = EnvironmentStore(variables: ["NETWORK_TIMEOUT": "soon", "NETWORK_RETRIES": "3"])
        let network = environment.namespace("network")
        // The environment lists the keys it has been asked for.
        for key in ["timeout", "retries"] { _ = try network.value(forKey: key, as: String.self) }
        let snapshot = try network.snapshot()
        #expect(try snapshot.value(forKey: "retries", as: Int.self) == 3)
        let error = #expect(throws: StorageError.self) { try snapshot.value(forKey: "timeout", as: Int.self) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("NETWORK_TIMEOUT"), "\(String(describing: error))")
    }

    /// A namespace of a read-only layered store of one layer is read-only
    /// too: a compare-and-swap went straight to the layer, past the check.
    @Test func aNamespaceOfAReadOnlyStoreOfOneLayerRefusesEveryWrite() throws {
        let base = InMemoryStore(["app.count": 1])
        let readOnly = LayeredStore([.init("base", base)], writingTo: .none).namespace("app")
        #expect(try readOnly.value(forKey: "count", as: Int.self) == 1)
        for write in [
            { try readOnly.set(2, forKey: "count") },
            { try readOnly.reference(forKey: "count", as: Int.self).modify { $0 = ($0 ?? 0) + 1 } },
            { _ = try readOnly.replaceStoredValues(expecting: ["count": 1], with: ["count": 3], .granted) },
        ] as [() throws -> Void] {
            let error = #expect(throws: StorageError.self) { try write() }
            #expect(error?.code == .readOnly)
        }
        #expect(base.storedValue(forKey: "app.count", .granted) == 1)
    }
}
