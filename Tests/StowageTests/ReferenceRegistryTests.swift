import Dispatch
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
        withExtendedLifetime(store) {}
    }

    /// Between a reference's last release and its `deinit` taking the entry
    /// out, the entry is still in the table, and its reference is being
    /// deinitialised: the registry must neither hand that reference out nor
    /// read a value from its core once a change has passed it by. A stand-in
    /// holds that window open: its `deinit` waits until the test is done.
    @Test func aReferenceWhoseDeinitHasBegunIsNeverUsed() throws {
        let store: InMemoryStore = ["name": "old"]
        let storeID = ObjectIdentifier(store)
        let referenceType = ObjectIdentifier(ReferenceCore<InMemoryStore, String>.self)
        let core = ReferenceCore<InMemoryStore, String>(storeID: storeID, key: "name")
        core.state.withLock { core.setCached(.present("old"), in: &$0) }
        let window = DeinitWindow()
        let holder = StandInHolder(StandIn(store: store, core: core, window: window))
        _ = ReferenceRegistry.shared.reference(ofType: referenceType, storeID: storeID, key: "name") { holder.standIn! }
        // The last release, on another thread, whose `deinit` then waits.
        DispatchQueue.global().async { holder.standIn = nil }
        window.deinitHasBegun.wait()

        // Its core missed no change yet, so its value may still be read.
        #expect(store.values.name == "old")

        // Changed behind Stowage's back, then announced, as another process's write is.
        store.setStoredValue("new", forKey: "name", .granted)
        store.announceChange(forKey: "name")
        #expect(store.values.name == "new")
        #expect(try store.value(forKey: "name", as: String.self) == "new")

        // Asked for again, the registry makes a new reference rather than hand out the going one.
        var replacement: StandIn? = StandIn(store: store, core: ReferenceCore<InMemoryStore, String>(storeID: storeID, key: "name"), window: nil)
        #expect(ReferenceRegistry.shared.reference(ofType: referenceType, storeID: storeID, key: "name") { replacement! } === replacement)

        window.mayFinish.signal()
        window.hasFinished.wait()
        // The going one took only its own entry out.
        #expect(ReferenceRegistry.shared.entryCount(storeID: storeID) == 1)
        // The replacement takes its own out as it goes, so the store's address,
        // reused by another test's store, finds no entry left behind.
        replacement = nil
        #expect(ReferenceRegistry.shared.entryCount(storeID: storeID) == 0)
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

/// Registers a core in the registry like a reference: it keeps its store
/// alive and takes its entry out in its `deinit`, so no entry outlives the
/// store and waits for another store at the same address. With a window, its
/// `deinit` says it has begun, then waits to be let finish before it takes
/// its entry out.
private final class StandIn: ChangeReceiving {
    let store: InMemoryStore
    let core: ReferenceCore<InMemoryStore, String>
    let window: DeinitWindow?

    init(store: InMemoryStore, core: ReferenceCore<InMemoryStore, String>, window: DeinitWindow?) {
        self.store = store
        self.core = core
        self.window = window
    }

    deinit {
        window?.deinitHasBegun.signal()
        window?.mayFinish.wait()
        ReferenceRegistry.shared.removeDeadEntries(storeID: core.storeID, key: core.key)
        window?.hasFinished.signal()
    }

    var observedKey: ObservedKey { core }
    func storageDidChange() { core.state.withLock { core.setCached(nil, in: &$0) } }
    func discardCachedValue() { storageDidChange() }
    func noteSiblingReference() {}
}

/// The signals a stand-in's `deinit` and the test exchange.
private final class DeinitWindow: Sendable {
    let deinitHasBegun = DispatchSemaphore(value: 0)
    let mayFinish = DispatchSemaphore(value: 0)
    let hasFinished = DispatchSemaphore(value: 0)
}

/// Holds the only strong reference to a stand-in, so another thread can make the last release.
private final class StandInHolder: @unchecked Sendable {
    // Sendable: set once before the hand-off, then only by the thread it is handed to.
    var standIn: StandIn?

    init(_ standIn: StandIn) { self.standIn = standIn }
}
