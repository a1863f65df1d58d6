import Foundation
import StowageEnvironment
import StowageInMemory
import StowageJSONFile
import StowageTestSupport
import Testing

struct StoreSnapshotTests {
    @Test func aSnapshotDoesNotFollowTheStore() throws {
        let store: InMemoryStore = ["a": 1]
        let before = try (store as any UnderlyingStorage).snapshot()
        try store.set(2, forKey: "a")
        try store.set(3, forKey: "b")
        #expect(before == ["a": 1])
        #expect(store.snapshot().changedKeys(comparedWith: before) == ["a", "b"])
    }

    @Test func aFileSnapshotBecomesAnInMemoryStoreAndBack() throws {
        let directory = TemporaryDirectory()
        directory.write(#"{"network": {"timeout": 30, "hosts": ["a", "b"]}, "name": "x"}"#, to: "settings.json")
        let file = JSONFileStore(url: directory.url("settings.json"), options: .init(keyLayout: .nested(), changeDetection: .none))
        let snapshot = try file.snapshot()
        #expect(snapshot == ["network.timeout": 30, "network.hosts": ["a", "b"], "name": "x"])
        let preview = InMemoryStore(snapshot: snapshot)
        #expect(try preview.value(forKey: "network.timeout", as: Int.self) == 30)
        // Written to an empty file in the same layout, it rebuilds the same document.
        let copy = JSONFileStore(url: directory.url("copy.json"), options: .init(keyLayout: .nested(), changeDetection: .none))
        try snapshot.write(to: copy)
        #expect((try copy.snapshot()).entries == (try file.snapshot()).entries)
        #expect(try copy.snapshot() == snapshot)
    }

    @Test func writingASnapshotLeavesOtherKeysAndTellsReferences() throws {
        let target: InMemoryStore = ["kept": true, "a": 0]
        let reference = target.reference(forKey: "a", as: Int.self)
        #expect(reference.value == 0)
        let snapshot: StoreSnapshot = ["a": 1, "b": 2]
        try snapshot.write(to: target)
        #expect(target.snapshot() == ["kept": true, "a": 1, "b": 2])
        #expect(reference.value == 1)
    }

    @Test func descriptionsRedactSecrets() throws {
        let environment = EnvironmentStore(variables: ["API_TOKEN": "hunter2", "PORT": "8080"], options: .init(keyMapping: .exact))
        let snapshot = try environment.snapshot()
        #expect(snapshot.secretKeys == ["API_TOKEN"])
        #expect(snapshot.description == "StoreSnapshot(2 keys)\n  API_TOKEN = <redacted>\n  PORT = \"8080\"")
        var dumped = ""
        dump(snapshot, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(!String(reflecting: snapshot).contains("hunter2"))
        #expect(try snapshot.value(forKey: "API_TOKEN", as: String.self) == "hunter2")
    }

    @Test func namespacesAndLayeredStoresHaveSnapshots() throws {
        let base: InMemoryStore = ["network.timeout": 30, "ui.theme": "dark"]
        #expect(try base.namespace("network").snapshot() == ["timeout": 30])
        let layered = LayeredStore([InMemoryStore(["ui.theme": "light"]), base])
        #expect(try layered.snapshot() == ["network.timeout": 30, "ui.theme": "light"])
    }

    @Test func aStoreThatCanNotListItsKeysSaysSo() throws {
        final class OpaqueStore: UnderlyingStorage {
            func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? { nil }
            func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {}
            func removeStoredValue(forKey key: String, _ access: BackendAccess) {}
        }
        let error = try #require(throws: StorageError.self) { try OpaqueStore().snapshot() }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("OpaqueStore"))
    }
}

/// A layered store's snapshot agrees with its reads (issue 14): the
/// environment lists only the keys already read, yet it shadows the file.
struct LayeredSnapshotTests {
    @Test func everyKeyAnyLayerListsHasTheValueAReadGives() throws {
        let directory = TemporaryDirectory()
        let file = JSONFileStore(url: directory.write(#"{"network.timeout": 20, "network.retries": 3}"#, to: "config.json"))
        let environment = EnvironmentStore(variables: ["NETWORK_TIMEOUT": "5.0"])
        let settings = LayeredStore([.init("environment", environment), .init("config file", file)])
        #expect(try settings.value(forKey: "network.timeout", as: Double.self) == 5.0)

        let snapshot = try settings.snapshot()
        #expect(snapshot["network.timeout"] == "5.0", "the environment's text, as the layer a read uses holds it")
        #expect(snapshot.origins["network.timeout"] == "environment")
        #expect(snapshot["network.retries"] == 3)
        #expect(snapshot.origins["network.retries"] == "config file")
        #expect(try snapshot.value(forKey: "network.timeout", as: Double.self) == 5.0)
        #expect(snapshot.description.contains("network.timeout = \"5.0\" (from environment)"), "\(snapshot)")
    }

    @Test func theSameHoldsBeforeAnyRead() throws {
        let file = InMemoryStore(["network.timeout": 20])
        let environment = EnvironmentStore(variables: ["NETWORK_TIMEOUT": "5.0"])
        let snapshot = try LayeredStore([environment, file]).snapshot()
        #expect(snapshot["network.timeout"] == "5.0")
    }
}
