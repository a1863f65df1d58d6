import Observation
@testable import Stowage
import StowageInMemory
import Synchronization
import Testing

struct ReferenceRegistryTests {
    @Test func aReferenceTakesItsEntryOutAsItGoes() throws {
        let store = InMemoryStore()
        let storeID = ObjectIdentifier(store)
        do {
            let strings = (0..<50).map { store.reference(forKey: "key.\($0)", as: String.self) }
            do {
                let integers = (0..<100).map { store.reference(forKey: "key.\($0)", as: Int.self) }
                #expect(ReferenceRegistry.shared.entryCount(storeID: storeID) == 150)
                withExtendedLifetime(integers) {}
            }
            // The other value type's entries stay, and still work, while the first ones go.
            #expect(ReferenceRegistry.shared.entryCount(storeID: storeID) == 50)
            for (index, reference) in strings.enumerated() { reference.value = "value \(index)" }
            #expect(try store.value(forKey: "key.7", as: String.self) == "value 7")
        }
        #expect(ReferenceRegistry.shared.entryCount(storeID: storeID) == 0)
    }

    @Test func aValueIsNeverReadFromTheCoreOfAReferenceThatMissedAChange() throws {
        let store: InMemoryStore = ["name": "old"]
        // A stand-in whose entry outlives it, as a reference's does between its
        // last release and its `deinit`: no change can reach its core then.
        let core = ReferenceCore<InMemoryStore, String>(storeID: ObjectIdentifier(store), key: "name")
        core.state.withLock { core.setCached(.present("old"), in: &$0) }
        var standIn: StandIn? = StandIn(core: core)
        // Taken out at the end, as a reference's `deinit` would: a later store at this address must not find it.
        defer { ReferenceRegistry.shared.removeDeadEntries(storeID: ObjectIdentifier(store), key: "name") }
        _ = ReferenceRegistry.shared.reference(
            ofType: ObjectIdentifier(ReferenceCore<InMemoryStore, String>.self), storeID: ObjectIdentifier(store), key: "name"
        ) { standIn! }
        standIn = nil
        #expect(store.values.name == "old")

        // Changed behind Stowage's back, then announced, as another process's write is.
        store.setStoredValue("new", forKey: "name", .granted)
        store.announceChange(forKey: "name")
        #expect(store.values.name == "new")
        #expect(try store.value(forKey: "name", as: String.self) == "new")
    }

    @Test func aValueReadThroughALiveReferenceIsTracked() {
        let store: InMemoryStore = ["name": "Ada"]
        let reference = store.reference(forKey: "name", as: String.self)
        #expect(reference.value == "Ada")
        let changes = Atomic(0)
        withObservationTracking {
            _ = store.values.name as String?
        } onChange: {
            changes.add(1, ordering: .relaxed)
        }
        store.values.name = "Grace"
        #expect(changes.load(ordering: .relaxed) == 1)
        withExtendedLifetime(reference) {}
    }
}

/// Registers a core in the registry like a reference, without taking its entry out when it goes.
private final class StandIn: ChangeReceiving {
    let core: ReferenceCore<InMemoryStore, String>

    init(core: ReferenceCore<InMemoryStore, String>) { self.core = core }

    var observedKey: ObservedKey { core }
    func storageDidChange() { core.state.withLock { core.setCached(nil, in: &$0) } }
    func discardCachedValue() { storageDidChange() }
    func noteSiblingReference() {}
}
