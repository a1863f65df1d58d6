import Foundation
import Stowage
import StowageEnvironment
import StowageInMemory
import StowageJSONFile
import StowageTestSupport
import Testing

/// Every public method of a built-in store that changes data, called as app
/// code calls it, reaches a live wrapper and both kinds of observer. (A
/// store's backend requirements, which would not, take a `BackendAccess` app
/// code can not make; that they do not compile from app code is what
/// `Scripts/check-guides.sh` checks.)
struct AppWritesReachObserversTests {
    /// Makes a live wrapper, a reference observer and a store observer for
    /// `key`, runs `change`, and expects all three to see `expected`.
    private func expectChange<Store: UnderlyingStorage>(
        in store: Store, key: String, to expected: Int?, by method: String,
        sourceLocation: SourceLocation = #_sourceLocation, _ change: () throws -> Void
    ) throws {
        let wrapper = Stored<Store, Int>(wrappedValue: -1, key, in: store)
        _ = wrapper.wrappedValue  // fills the reference's cache
        let seen = Collected<Int?>()
        let valueArrived = DispatchSemaphore(value: 0)
        let token = wrapper.projectedValue.reference.observe { value in
            seen.append(value)
            if value == expected { valueArrived.signal() }
        }
        let keyAnnounced = DispatchSemaphore(value: 0)
        let storeToken = store.observe { if $0.affects(key) { keyAnnounced.signal() } }
        defer {
            token.cancel()
            storeToken.cancel()
        }
        try change()
        #expect(valueArrived.wait(timeout: .now() + 20) == .success, "\(method): the reference's observer saw \(seen.all)", sourceLocation: sourceLocation)
        #expect(keyAnnounced.wait(timeout: .now() + 20) == .success, "\(method): the store's observer was not told", sourceLocation: sourceLocation)
        #expect(wrapper.wrappedValue == expected ?? -1, "\(method): the wrapper read \(wrapper.wrappedValue)", sourceLocation: sourceLocation)
    }

    /// The methods every store has, from the core: each changes `key` to a new value.
    private func expectEveryCoreMethodReachesObservers<Store: UnderlyingStorage>(_ store: Store) throws {
        let key = "count"
        try expectChange(in: store, key: key, to: 1, by: "set(_:forKey:)") { try store.set(1, forKey: key) }
        try expectChange(in: store, key: key, to: nil, by: "removeValue(forKey:)") { try store.removeValue(forKey: key) }
        try expectChange(in: store, key: key, to: 2, by: "values.count =") { store.values.count = 2 }
        try expectChange(in: store, key: key, to: 3, by: "values.count += 1") { store.values.count += 1 }
        try expectChange(in: store, key: key, to: nil, by: "values.count = nil") { store.values.count = nil }
        try expectChange(in: store, key: key, to: 4, by: "a typed key's subscript") { store[StorageKey<Int>(key, default: 0)] = 4 }
        try expectChange(in: store, key: key, to: 5, by: "a reference's value") { store.reference(forKey: key, as: Int.self).value = 5 }
        try expectChange(in: store, key: key, to: 6, by: "a reference's set(_:)") { try store.reference(forKey: key, as: Int.self).set(6) }
        try expectChange(in: store, key: key, to: 7, by: "a reference's modify") {
            try store.reference(forKey: key, as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        }
        try expectChange(in: store, key: key, to: nil, by: "a reference's set(nil)") { try store.reference(forKey: key, as: Int.self).set(nil) }
        try expectChange(in: store, key: key, to: 8, by: "a typed key's subscript") { store[StorageKey<Int>(key, default: 0)] = 8 }
        try expectChange(in: store, key: key, to: nil, by: "a defaulted reference's remove()") {
            Stored(StorageKey<Int>(key, default: 0), in: store).projectedValue.remove()
        }
        try expectChange(in: store, key: key, to: 9, by: "StoreSnapshot.write(to:)") { try StoreSnapshot([key: 9]).write(to: store) }
        // A migration leaves a key that already holds a value alone, so each starts from an absent key.
        try store.set(10, forKey: "old")
        try store.removeValue(forKey: key)
        try expectChange(in: store, key: key, to: 10, by: "migrateValue(from:to:)") { _ = try store.migrateValue(from: "old", to: key) }
        try store.set(11, forKey: "older")
        try store.removeValue(forKey: key)
        try expectChange(in: store, key: key, to: 22, by: "migrateValue(from:as:to:as:)") {
            _ = try store.migrateValue(from: "older", as: Int.self, to: key, as: Int.self) { $0 * 2 }
        }
    }

    @Test func inMemoryStore() throws {
        let store = InMemoryStore()
        try expectEveryCoreMethodReachesObservers(store)
        try expectChange(in: store, key: "count", to: 30, by: "restore(_:)") { store.restore(["count": 30]) }
        try expectChange(in: store, key: "count", to: nil, by: "removeAll()") { store.removeAll() }
    }

    @Test func jsonFileStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.url("settings.json")
        let store = JSONFileStore(url: url, options: .init(changeDetection: .none))
        try expectEveryCoreMethodReachesObservers(store)
        try expectChange(in: store, key: "count", to: 40, by: "transaction") { try store.transaction { try $0.set(40, forKey: "count") } }
        try store.flush()
        // Another program edits the file; reload() takes the change in.
        try Data(#"{"count": 41}"#.utf8).write(to: url)
        try expectChange(in: store, key: "count", to: 41, by: "reload()") { try store.reload() }
    }

    @Test func environmentStore() throws {
        let store = EnvironmentStore(variables: [:])
        try expectEveryCoreMethodReachesObservers(store)
    }

    @Test func layeredStore() throws {
        let top = InMemoryStore()
        let bottom = InMemoryStore()
        let store = LayeredStore([top, bottom])
        try expectEveryCoreMethodReachesObservers(store)
        // A layer written on its own reaches the layered store's wrappers too, when no layer above has the key.
        try store.removeValue(forKey: "count")
        try expectChange(in: store, key: "count", to: 50, by: "a layer's set(_:forKey:)") { try bottom.set(50, forKey: "count") }
    }

    @Test func storeNamespace() throws {
        let base = InMemoryStore()
        let store = base.namespace("app")
        try expectEveryCoreMethodReachesObservers(store)
        try expectChange(in: store, key: "count", to: 60, by: "the base store's set(_:forKey:)") { try base.set(60, forKey: "app.count") }
        try expectChange(in: store, key: "count", to: nil, by: "removeAll()") { try store.removeAll() }
    }
}
