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
        #expect(base.namespace("network", separator: "-").baseKey(forKey: "timeout") == "network-timeout")
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
}
