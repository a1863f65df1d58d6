import Stowage
import StowageLocking
import StowageTestSupport
import Testing

struct StorageReferenceTests {
    @Test func oneReferencePerStoreKeyAndValueType() {
        let store = CountingStore()
        let first = store.reference(forKey: "count", as: Int.self)
        let again = store.reference(forKey: "count", as: Int.self)
        let otherStore = CountingStore().reference(forKey: "count", as: Int.self)
        let otherKey = store.reference(forKey: "other", as: Int.self)
        let otherType = store.reference(forKey: "count", as: Int64.self)
        #expect(first === again)
        #expect(first !== otherStore)
        #expect(first !== otherKey)
        #expect(ObjectIdentifier(first) != ObjectIdentifier(otherType))
    }

    @Test func aReferenceNobodyHoldsIsReleased() {
        let store = CountingStore()
        weak var released: StorageReference<CountingStore, Int>?
        do {
            let reference = store.reference(forKey: "count", as: Int.self)
            released = reference
            #expect(released != nil)
        }
        #expect(released == nil)
        // The registry hands out a working new reference afterwards.
        store.reference(forKey: "count", as: Int.self).value = 4
        #expect(store.reference(forKey: "count", as: Int.self).value == 4)
    }

    @Test func cachedReadsDoNoStoreAccess() {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        reference.value = 7
        let readsAfterWrite = store.reads
        for _ in 0..<1_000 { #expect(reference.value == 7) }
        #expect(store.reads == readsAfterWrite)
    }

    @Test func anAbsentKeyIsCachedToo() {
        let store = CountingStore()
        let reference = store.reference(forKey: "missing", as: String.self)
        #expect(reference.value == nil)
        let reads = store.reads
        #expect(reference.value == nil)
        #expect(store.reads == reads)
    }

    @Test func aWriteThroughAnotherValueTypeReachesTheCache() {
        let store = CountingStore()
        let asInt = store.reference(forKey: "count", as: Int.self)
        let asInt64 = store.reference(forKey: "count", as: Int64.self)
        asInt.value = 1
        #expect(asInt64.value == 1)
        asInt64.value = 2
        #expect(asInt.value == 2)
    }

    @Test func aDirectStoreWriteAndRemovalReachTheCache() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "name", as: String.self)
        #expect(reference.value == nil)
        try store.set("Ada", forKey: "name")
        #expect(reference.value == "Ada")
        try store.removeValue(forKey: "name")
        #expect(reference.value == nil)
    }

    @Test func anAnnouncedExternalChangeReachesTheCache() {
        let store = CountingStore()
        let reference = store.reference(forKey: "name", as: String.self)
        reference.value = "before"
        store.changeExternally("name", to: "after")
        #expect(reference.value == "after")
        store.changeExternally("name", to: nil)
        #expect(reference.value == nil)
    }

    @Test func announcingAllKeysInvalidatesEveryReferenceOfTheStoreOnly() {
        let store = CountingStore()
        let other = CountingStore()
        let first = store.reference(forKey: "a", as: Int.self)
        let unrelated = other.reference(forKey: "a", as: Int.self)
        first.value = 1
        unrelated.value = 1
        store.changeExternally("a", to: 2, announce: false)
        other.changeExternally("a", to: 2, announce: false)
        #expect(first.value == 1)
        store.announceChangeOfAllKeys()
        #expect(first.value == 2)
        #expect(unrelated.value == 1)
    }

    @Test func settingNilRemovesTheKey() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "nickname", as: String?.self)
        reference.value = "Ada"
        #expect(store.storedValue(forKey: "nickname", .granted) == "Ada")
        reference.value = String??.some(nil)
        #expect(store.storedValue(forKey: "nickname", .granted) == nil)
        try reference.set("again")
        try reference.set(nil)
        #expect(store.storedValue(forKey: "nickname", .granted) == nil)
    }

    @Test func aValueOfTheWrongTypeIsReportedAndRemembered() throws {
        ReportedErrors.install()
        let store = CountingStore()
        let key = uniqueKey()
        try store.set("not a number", forKey: key)
        let reference = store.reference(forKey: key, as: Int.self)
        #expect(reference.value == nil)
        let error = try #require(reference.lastError)
        #expect(error.code == .typeMismatch)
        #expect(error.key == key)
        #expect(error.message.contains("expected Int"))
        #expect(!error.message.contains("not a number"))
        #expect(throws: StorageError.self) { try reference.read() }
        #expect(ReportedErrors.forKey(key).count == 1, "reported once, not on every read")
        reference.value = 3
        #expect(reference.lastError == nil)
    }

    @Test func storeFailuresAreThrownWithTheKeyAndReportedFromSetters() {
        ReportedErrors.install()
        let key = uniqueKey()
        let reference = FailingStore().reference(forKey: key, as: Int.self)
        let readError = #expect(throws: StorageError.self) { try reference.read() }
        #expect(readError?.code == .storeFailure)
        #expect(readError?.underlyingError is FailingStore.Failure)
        #expect(throws: StorageError.self) { try reference.set(1) }
        reference.value = 2
        #expect(reference.lastError?.key == key)
        #expect(ReportedErrors.forKey(key).isEmpty == false)
    }

    @Test func modifyStartsFromTheDefaultAndWritesNothingWhenUnchanged() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        try reference.modify { $0 = ($0 ?? 10) + 1 }
        #expect(reference.value == 11)
        let writes = store.writes
        let result = try reference.modify { value -> String in "unchanged \(value ?? 0)" }
        #expect(result == "unchanged 11")
        #expect(store.writes == writes)
    }

    @Test func modifyRefusesToOverwriteAnUnreadableValue() throws {
        let store = CountingStore()
        try store.set("text", forKey: "count")
        let reference = store.reference(forKey: "count", as: Int.self)
        #expect(throws: StorageError.self) { try reference.modify { $0 = ($0 ?? 0) + 1 } }
        #expect(store.storedValue(forKey: "count", .granted) == "text")
    }

    @Test func dynamicMemberLookupReadsThroughTheValue() {
        let store = CountingStore()
        let reference = store.reference(forKey: "profile", as: Profile.self)
        #expect(reference.name == nil)
        reference.value = Profile(name: "Ada")
        #expect(reference.name == "Ada")
        #expect(reference.address?.city == "Paris")
    }

    @Test func modifyToNilLeavesTheCacheAgreeingWithTheStore() throws {
        let store = CountingStore()
        let nickname = store.reference(forKey: "nickname", as: String?.self)
        try nickname.set("Ada")
        try nickname.modify { $0 = String??.some(nil) }
        #expect(store.storedValue(forKey: "nickname", .granted) == nil)
        #expect(nickname.value == nil, "the cache says absent, as a fresh read would")
        #expect(!nickname.hasStoredValue)
    }

    @Test func aStoredTopLevelNullReadsAsAbsent() throws {
        let store = CountingStore()
        store.setStoredValue(.null, forKey: "count", .granted)
        let reference = store.reference(forKey: "count", as: Int.self)
        #expect(reference.value == nil)
        #expect(reference.lastError == nil)
        #expect(!reference.hasStoredValue)
        #expect(try store.value(forKey: "count", as: Int.self) == nil)
        try reference.modify { $0 = ($0 ?? 1) + 1 }
        #expect(reference.value == 2)
    }

    struct Lossy: Codable, Storable, Equatable {
        var kept = 0
        var notStored = 0
        enum CodingKeys: String, CodingKey { case kept }
    }

    @Test func afterALossyWriteTheCacheAgreesWithAFreshRead() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "lossy", as: Lossy.self)
        try reference.set(Lossy(kept: 1, notStored: 5))
        #expect(reference.value == Lossy(kept: 1, notStored: 0))
    }

    @Test func anObserverOfAnotherReferenceReadsTheNewValueThroughTheWriter() throws {
        let store = CountingStore()
        let writer = store.reference(forKey: "count", as: Int.self)
        let other = store.reference(forKey: "count", as: Int64.self)
        try writer.set(1)
        _ = writer.value
        let seenThroughWriter = Locked<[Int?]>([])
        let token = other.observe { _ in seenThroughWriter.withLock { $0.append(writer.value) } }
        try writer.set(2)
        #expect(seenThroughWriter.withLock { $0 } == [2])
        token.cancel()
    }
}
