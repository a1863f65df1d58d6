import Observation
import Stowage
import StowageLocking
import Synchronization
import Testing

struct ObservationTests {
    @Test func changesYieldTheCurrentValueThenEveryChangeInOrder() async {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        reference.value = 1
        var iterator = reference.changes.makeAsyncIterator()
        #expect(await iterator.next() == .some(1))
        reference.value = 2
        reference.value = 3
        try? store.removeValue(forKey: "count")
        #expect(await iterator.next() == .some(2))
        #expect(await iterator.next() == .some(3))
        #expect(await iterator.next() == .some(nil))
    }

    @Test func endingOneStreamNeverEndsAnother() async {
        let store = CountingStore()
        @Stored("count", in: store) var count = 0
        let first = $count.changes
        let second = $count.changes
        let firstTask = Task { () -> Int? in
            for await value in first { return value }
            return nil
        }
        #expect(await firstTask.value == 0)
        // The first stream has ended; the second still gets the current value and every change.
        count = 1
        count = 2
        var iterator = second.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        let third = Task { [projection = $count] () -> [Int] in
            var seen: [Int] = []
            for await value in projection.changes { seen.append(value) }
            return seen
        }
        third.cancel()
        _ = await third.value
        count = 3
        #expect(await iterator.next() == 3)
    }

    @Test func observersHearOfActualChangesOnlyFromEverySource() {
        let store = CountingStore()
        let reference = store.reference(forKey: "name", as: String.self)
        let heard = Locked<[String?]>([])
        let token = reference.observe { value in heard.withLock { $0.append(value) } }
        reference.value = "a"
        reference.value = "a"
        try? store.set("b", forKey: "name")
        store.reference(forKey: "name", as: String?.self).value = "c"
        store.changeExternally("name", to: "d")
        store.changeExternally("name", to: "d")
        try? store.removeValue(forKey: "name")
        #expect(heard.withLock { $0 } == ["a", "b", "c", "d", nil])
        token.cancel()
        reference.value = "e"
        #expect(heard.withLock { $0.count } == 5)
    }

    @Test func aTokenStopsObservingWhenReleased() {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        let calls = Atomic<Int>(0)
        do {
            let token = reference.observe { _ in calls.add(1, ordering: .relaxed) }
            reference.value = 1
            _ = token
        }
        reference.value = 2
        let callCount = calls.load(ordering: .relaxed)
        #expect(callCount == 1)
    }

    @Test func observationTrackingFiresForChangesFromAnySource() {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        let sources: [(String, () -> Void)] = [
            ("the reference", { reference.value = 1 }),
            ("another reference type", { store.reference(forKey: "count", as: Int64.self).value = 2 }),
            ("the store", { try? store.set(3, forKey: "count") }),
            ("an announced external change", { store.changeExternally("count", to: 4) }),
        ]
        for (source, change) in sources {
            let fired = Atomic<Bool>(false)
            withObservationTracking {
                _ = reference.value
            } onChange: {
                fired.store(true, ordering: .relaxed)
            }
            change()
            let didFire = fired.load(ordering: .relaxed)
            #expect(didFire, "change through \(source)")
        }
        #expect(reference.value == 4)
    }

    @Test func wrapperReadsAreTrackedToo() {
        let store = CountingStore()
        @Stored("count", in: store) var count = 0
        let fired = Atomic<Bool>(false)
        withObservationTracking {
            _ = count
        } onChange: {
            fired.store(true, ordering: .relaxed)
        }
        try? store.set(9, forKey: "count")
        let didFire = fired.load(ordering: .relaxed)
        #expect(didFire)
    }

    @Test func theStoreWideStreamReportsChangedKeys() async {
        let store = CountingStore()
        var changes = store.changes.makeAsyncIterator()
        store.reference(forKey: "a", as: Int.self).value = 1
        try? store.removeValue(forKey: "b")
        store.changeExternally("c", to: 3)
        store.announceChangeOfAllKeys()
        #expect(await changes.next() == .key("a"))
        #expect(await changes.next() == .key("b"))
        #expect(await changes.next() == .key("c"))
        #expect(await changes.next() == .allKeys)
    }

    @Test func undecodableValuesReachStreamsAsTheDefault() async {
        let store = CountingStore()
        @Stored("count", in: store) var count = 5
        var iterator = $count.changes.makeAsyncIterator()
        #expect(await iterator.next() == 5)
        store.changeExternally("count", to: "garbage")
        #expect(await iterator.next() == 5)
        store.changeExternally("count", to: 6)
        #expect(await iterator.next() == 6)
    }

    @Test func observingASetFiresOnlyWhenItsElementsChange() throws {
        let store = CountingStore()
        let tags = store.reference(forKey: "tags", as: Set<Int>.self)
        try tags.set(Set(0..<50))
        let calls = Atomic<Int>(0)
        let token = tags.observe { _ in calls.add(1, ordering: .relaxed) }
        try tags.set(Set((0..<50).reversed()))
        let afterEqualSet = calls.load(ordering: .relaxed)
        #expect(afterEqualSet == 0)
        try tags.set(Set(0..<51))
        let afterChange = calls.load(ordering: .relaxed)
        #expect(afterChange == 1)
        token.cancel()
    }

    @Test func modifyCanChangeTheSignOfZero() throws {
        let store = CountingStore()
        let value = store.reference(forKey: "zero", as: Double.self)
        try value.set(0.0)
        try value.modify { $0 = -0.0 }
        let stored = store.storedValue(forKey: "zero", .granted)
        #expect(stored.map { if case .double(let d) = $0 { d.sign == .minus } else { false } } == true)
    }
}
