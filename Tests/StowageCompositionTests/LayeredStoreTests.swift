import StowageEnvironment
import StowageInMemory
import StowageJSONFile
import StowageLocking
import StowageTestSupport
import Testing

struct LayeredStoreTests {
    init() { ReportedErrors.install() }

    @Test func aReadTakesTheFirstLayerThatHasTheKey() throws {
        let top: InMemoryStore = ["shared": 1, "onlyTop": 10]
        let bottom: InMemoryStore = ["shared": 2, "onlyBottom": 20]
        let store = LayeredStore([top, bottom])
        #expect(try store.value(forKey: "shared", as: Int.self) == 1)
        #expect(try store.value(forKey: "onlyTop", as: Int.self) == 10)
        #expect(try store.value(forKey: "onlyBottom", as: Int.self) == 20)
        #expect(try store.value(forKey: "nowhere", as: Int.self) == nil)
    }

    @Test func originNamesTheLayerAValueCameFrom() {
        let store = LayeredStore([LayeredStore.Layer("overrides", InMemoryStore(["a": 1])), LayeredStore.Layer("defaults", InMemoryStore(["a": 0, "b": 0]))])
        #expect(store.origin(forKey: "a")?.name == "overrides")
        #expect(store.origin(forKey: "a")?.store === store.layers[0].store)
        #expect(store.origin(forKey: "b")?.name == "defaults")
        #expect(store.origin(forKey: "c") == nil)
    }

    @Test func theEnvironmentLayerParsesItsOwnText() throws {
        let environment = EnvironmentStore(variables: ["RETRIES": "0x1F", "TAGS": "a,b"])
        let store = LayeredStore([environment, InMemoryStore(["retries": 3])])
        #expect(try store.value(forKey: "retries", as: Int.self) == 31)
        #expect(try store.value(forKey: "tags", as: [String].self) == ["a", "b"])
        #expect(store.values.retries == Int?.some(31))
    }

    @Test func writesGoToTheFirstWritableLayerSkippingTheEnvironment() throws {
        let environment = EnvironmentStore(variables: [:])
        let file = InMemoryStore()
        let store = LayeredStore([environment, file])
        try store.set(5, forKey: "count")
        #expect(file.storedValue(forKey: "count", .granted) == 5)
        #expect(environment.environmentForChildProcess()["COUNT"] == nil)
    }

    @Test func writesGoToTheDesignatedLayer() throws {
        let top = InMemoryStore(), middle = InMemoryStore(), bottom = InMemoryStore()
        let store = LayeredStore([top, middle, bottom], writingTo: .store(bottom))
        try store.set("x", forKey: "k")
        #expect(bottom.storedValue(forKey: "k", .granted) == "x")
        #expect(top.storedValue(forKey: "k", .granted) == nil && middle.storedValue(forKey: "k", .granted) == nil)
        try store.removeValue(forKey: "k")
        #expect(bottom.storedValue(forKey: "k", .granted) == nil)
    }

    @Test func aStoreWithNoWriteLayerRefusesWrites() throws {
        let store = LayeredStore([InMemoryStore(["a": 1])], writingTo: .none)
        #expect(!store.isDefaultWriteLayer)
        let error = try #require(throws: StorageError.self) { try store.set(2, forKey: "a") }
        #expect(error.code == .readOnly)
        #expect(try store.value(forKey: "a", as: Int.self) == 1)
    }

    @Test func aShadowedWriteIsReportedAndStillWritten() throws {
        let key = uniqueKey()
        let overrides = InMemoryStore([key: 1])
        let file = InMemoryStore()
        let store = LayeredStore([LayeredStore.Layer("overrides", overrides), LayeredStore.Layer("file", file)], writingTo: .store(file))
        try store.set(2, forKey: key)
        #expect(file.storedValue(forKey: key, .granted) == 2)
        #expect(try store.value(forKey: key, as: Int.self) == 1)
        let reported = ReportedErrors.forKey(key)
        #expect(reported.map(\.code) == [.shadowedWrite])
        #expect(reported.first?.message.contains("\"overrides\"") == true)
        #expect(reported.first?.message.contains("\"file\"") == true)
        #expect(reported.first?.storeName == "LayeredStore(overrides, file)")
    }

    @Test func aReferenceThatMadeAShadowedWriteReadsTheShadowingValue() throws {
        let key = uniqueKey()
        let file = InMemoryStore()
        let store = LayeredStore([EnvironmentStore(variables: ["TIMEOUT": "5"]), file])
        let timeout = store.reference(forKey: "timeout", as: Double.self)
        let flag = store.reference(forKey: key, as: Bool.self)
        #expect(timeout.value == 5)
        try timeout.set(60)
        #expect(file.storedValue(forKey: "timeout", .granted) == 60.0)
        #expect(timeout.value == 5)
        try timeout.modify { $0 = 70 }
        #expect(timeout.value == 5)
        // An unshadowed write is cached as usual.
        try flag.set(true)
        #expect(flag.value == true)
    }

    @Test func aShadowedWriteIsRefusedWhenThePolicySaysSo() throws {
        let key = uniqueKey()
        let file = InMemoryStore()
        let store = LayeredStore([InMemoryStore([key: 1]), file], writingTo: .store(file), shadowedWrites: .fail)
        let error = try #require(throws: StorageError.self) { try store.set(2, forKey: key) }
        #expect(error.code == .shadowedWrite)
        #expect(file.storedValue(forKey: key, .granted) == nil)
        // An unshadowed key is written as usual.
        try store.set(3, forKey: key + ".other")
        #expect(file.storedValue(forKey: key + ".other", .granted) == 3)
    }

    @Test func aWriteToALowerLayerReachesReferencesOnlyWhenNotShadowed() throws {
        let top = InMemoryStore(["shadowed": 1])
        let bottom = InMemoryStore(["shadowed": 2, "visible": 3])
        let store = LayeredStore([top, bottom], writingTo: .none)
        let shadowed = Collected<Int?>(), visible = Collected<Int?>()
        let announced = Collected<StoreChange>()
        let storeToken = store.observe { announced.append($0) }
        let shadowedToken = store.reference(forKey: "shadowed", as: Int.self).observe { shadowed.append($0) }
        let visibleToken = store.reference(forKey: "visible", as: Int.self).observe { visible.append($0) }
        try bottom.set(20, forKey: "shadowed")
        try bottom.set(30, forKey: "visible")
        try bottom.set(30, forKey: "visible")  // the same value again: no change to read
        #expect(shadowed.all.isEmpty)
        #expect(visible.all == [30])
        // The layered store announced the visible key, never the shadowed one.
        #expect(!announced.all.contains(.key("shadowed")))
        #expect(announced.all.contains(.key("visible")))
        #expect(store.reference(forKey: "visible", as: Int.self).value == 30)
        // Removing the shadowing value uncovers the lower one.
        try top.removeValue(forKey: "shadowed")
        #expect(shadowed.all == [20])
        _ = (storeToken, shadowedToken, visibleToken)
    }

    @Test func aChangeOfTheHigherLayerReachesReferencesAndStreams() async throws {
        let top = InMemoryStore()
        let store = LayeredStore([top, InMemoryStore(["mode": "default"])])
        let reference = store.reference(forKey: "mode", as: String.self)
        #expect(reference.value == "default")
        var changes = store.changes.makeAsyncIterator()
        top.restore(["mode": "override"])
        #expect(reference.value == "override")
        #expect(await changes.next() == .key("mode"))
    }

    @Test func theEnvironmentLayerReloadReachesTheLayeredStore() throws {
        let files = TemporaryDirectory()
        let dotEnv = files.write("LEVEL=1\n", to: ".env")
        let environment = try EnvironmentStore(dotEnv: EnvironmentStore.DotEnvFile(url: dotEnv), variables: [:])
        let store = LayeredStore([environment, InMemoryStore(["level": 0])])
        let reference = store.reference(forKey: "level", as: Int.self)
        #expect(reference.value == 1)
        files.write("LEVEL=2\n", to: ".env")
        try environment.reload()
        #expect(reference.value == 2)
    }

    @Test func anotherWritersChangeToTheFileLayerReachesTheLayeredStore() throws {
        let directory = TemporaryDirectory()
        directory.write(#"{"port": 8080}"#, to: "config.json")
        let file = JSONFileStore(url: directory.url("config.json"), options: .init(changeDetection: .none))
        let store = LayeredStore([EnvironmentStore(variables: [:]), file, InMemoryStore(["port": 80])])
        let reference = store.reference(forKey: "port", as: Int.self)
        #expect(reference.value == 8080)
        let other = JSONFileStore(url: directory.url("config.json"), options: .init(changeDetection: .none))
        try other.set(9090, forKey: "port")
        try other.flush()
        try file.reload()
        #expect(reference.value == 9090)
        try other.removeValue(forKey: "port")
        try other.flush()
        try file.reload()
        #expect(reference.value == 80)
        #expect(store.origin(forKey: "port")?.store === store.layers[2].store)
    }

    @Test func wrappersAndTypedKeysWorkOnALayeredStore() throws {
        let defaults: InMemoryStore = ["volume": 5]
        let store = LayeredStore([InMemoryStore(), defaults])
        let volume = Stored<LayeredStore, Int>(wrappedValue: 0, "volume", in: store)
        #expect(volume.wrappedValue == 5)
        volume.wrappedValue = 7
        #expect(volume.wrappedValue == 7)
        #expect(defaults.storedValue(forKey: "volume", .granted) == 5)
        let key = StorageKey<Int>("volume", default: 0)
        #expect(store[key] == 7)
    }

    @Test func modifyReadsTheVisibleValueAndWritesTheWriteLayer() throws {
        let file = InMemoryStore()
        let store = LayeredStore([file, InMemoryStore(["count": 10])])
        try store.reference(forKey: "count", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        #expect(file.storedValue(forKey: "count", .granted) == 11)
    }

    /// A write that lands in the write layer just after a compare-and-swap
    /// read the key as absent must make the swap fail, not be overwritten
    /// (found by the conformance suite's concurrent modify under TSan).
    @Test func aCompareAndSwapDoesNotOverwriteAWriteItDidNotSee() throws {
        /// Another thread's write lands right after the first read.
        final class RacedStore: UnderlyingStorage {
            let inner = InMemoryStore()
            private let raced = Locked(false)
            func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
                let value = inner.storedValue(forKey: key, .granted)
                let isFirstRead = raced.withLock { wasRaced in
                    defer { wasRaced = true }
                    return !wasRaced
                }
                if isFirstRead { inner.setStoredValue(1, forKey: key, .granted) }
                return value
            }
            func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) { inner.setStoredValue(value, forKey: key, .granted) }
            func removeStoredValue(forKey key: String, _ access: BackendAccess) { inner.removeStoredValue(forKey: key, .granted) }
            func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) -> Bool {
                inner.replaceStoredValues(expecting: expected, with: replacements, .granted)
            }
        }
        let raced = RacedStore()
        let store = LayeredStore([raced, InMemoryStore()])
        #expect(try !store.replaceStoredValue(forKey: "counter", expecting: nil, with: 5, .granted))
        #expect(raced.inner.storedValue(forKey: "counter", .granted) == 1)
    }

    @Test func listingAndSecretsCombineTheLayers() throws {
        let environment = EnvironmentStore(variables: ["API_TOKEN": "s3cret"], options: .init(keyMapping: .exact))
        let store = LayeredStore([environment, InMemoryStore(["API_TOKEN": "default", "name": "x"])])
        #expect(try store.storedEntries(.granted) == ["API_TOKEN": "s3cret", "name": "x"])
        #expect(store.isSecret(key: "API_TOKEN"))
        #expect(!store.isSecret(key: "name"))
    }
}
