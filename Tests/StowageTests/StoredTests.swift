import Stowage
import StowageTestSupport
import Testing

/// A store with a default instance, so the `in:`-less initialisers can be tested in this module.
final class SharedCountingStore: DefaultInstanceProviding {
    static let `default` = SharedCountingStore()
    let inner = CountingStore()
    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? { inner.storedValue(forKey: key, .granted) }
    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) { inner.setStoredValue(value, forKey: key, .granted) }
    func removeStoredValue(forKey key: String, _ access: BackendAccess) { inner.removeStoredValue(forKey: key, .granted) }
}

struct StoredTests {
    struct Settings: Sendable {
        let store: CountingStore
        @Stored<CountingStore, Int> var launchCount: Int
        @Stored<CountingStore, String?> var userName: String?
        @Stored<CountingStore, Theme> var theme: Theme
        @Stored<CountingStore, Profile> var profile: Profile

        init(store: CountingStore) {
            self.store = store
            _launchCount = Stored(wrappedValue: 0, "launchCount", in: store)
            _userName = Stored("user.name", in: store)
            _theme = Stored(wrappedValue: .light, "theme", in: store, persistsDefault: true)
            _profile = Stored(wrappedValue: Profile(), "profile", in: store)
        }
    }

    @Test func absentKeysReadTheDefaultWithoutWritingIt() {
        let settings = Settings(store: CountingStore())
        #expect(settings.launchCount == 0)
        #expect(settings.userName == nil)
        #expect(settings.store.storedValue(forKey: "launchCount", .granted) == nil)
    }

    @Test func settersAreNonmutatingSoALetWorks() {
        let settings = Settings(store: CountingStore())
        settings.launchCount += 1
        settings.launchCount += 1
        #expect(settings.launchCount == 2)
        #expect(settings.store.storedValue(forKey: "launchCount", .granted) == 2)
    }

    @Test func assigningNilToAnOptionalRemovesTheKey() {
        let settings = Settings(store: CountingStore())
        settings.userName = "Ada"
        #expect(settings.store.storedValue(forKey: "user.name", .granted) == "Ada")
        settings.userName = nil
        #expect(settings.store.storedValue(forKey: "user.name", .granted) == nil)
    }

    @Test func persistDefaultWritesTheDefaultOnTheFirstRead() {
        let settings = Settings(store: CountingStore())
        #expect(settings.store.storedValue(forKey: "theme", .granted) == nil)
        #expect(settings.theme == .light)
        #expect(settings.store.storedValue(forKey: "theme", .granted) == "light")
    }

    @Test func persistDefaultNeverOverwritesAValue() {
        let store = CountingStore()
        store.setStoredValue("dark", forKey: "theme", .granted)
        let settings = Settings(store: store)
        #expect(settings.theme == .dark)
        #expect(store.storedValue(forKey: "theme", .granted) == "dark")
    }

    @Test func twoInstancesShareTheOneReference() {
        let store = CountingStore()
        let first = Settings(store: store)
        let second = Settings(store: store)
        #expect(first.$launchCount.reference === second.$launchCount.reference)
        first.launchCount = 5
        #expect(second.launchCount == 5)
    }

    @Test func modifyStartsFromTheWrappersDefault() {
        let store = CountingStore()
        @Stored("count", in: store) var count = 100
        $count.modify { $0 += 1 }
        #expect(count == 101)
        #expect(store.storedValue(forKey: "count", .granted) == 101)
    }

    @Test func anUnreadableValueYieldsTheDefaultAndIsReported() throws {
        ReportedErrors.install()
        let store = CountingStore()
        let key = uniqueKey()
        store.setStoredValue("many", forKey: key, .granted)
        @Stored(key, in: store) var count = 7
        #expect(count == 7)
        #expect($count.reference.lastError?.code == .typeMismatch)
        #expect(ReportedErrors.forKey(key).first?.message.contains("expected Int") == true)
        #expect(ReportedErrors.forKey(key).first?.storeName == "CountingStore", "a report names the store it came from")
        $count.modify { $0 += 1 }
        #expect(count == 8, "modify replaces an unreadable value, as assignment would")
    }

    @Test func keyPathsReadAndWriteThroughTheProjection() {
        let settings = Settings(store: CountingStore())
        #expect(settings.$profile.name == "Guest")
        settings.$profile.name = "Ada"
        settings.$profile.address.city = "London"
        #expect(settings.profile.name == "Ada")
        #expect(settings.profile.address.city == "London")
    }

    @Test func resetRemovesTheKeySoTheDefaultReturns() {
        let settings = Settings(store: CountingStore())
        settings.launchCount = 9
        #expect(settings.$launchCount.hasStoredValue)
        settings.$launchCount.remove()
        #expect(!settings.$launchCount.hasStoredValue)
        #expect(settings.launchCount == 0)
    }

    @Test func theDefaultIsEvaluatedLazily() {
        let store = CountingStore()
        store.setStoredValue(1, forKey: "value", .granted)
        @Stored("value", in: store) var value = Self.unreachableDefault()
        #expect(value == 1)
    }

    private static func unreachableDefault() -> Int {
        Issue.record("the default was evaluated although the key had a value")
        return 0
    }

    @Test func wrappersWorkInClassesAndActors() async {
        final class Model {
            @Stored("count", in: SharedCountingStore.default) var count = 0
        }
        @MainActor final class ViewModel {
            @Stored("viewCount", in: SharedCountingStore.default) var count = 0
        }
        actor Counter {
            @Stored("actorCount", in: SharedCountingStore.default) var count = 0
            func increment() -> Int {
                count += 1
                return count
            }
        }
        let model = Model()
        model.count = 3
        #expect(Model().count == 3)
        await MainActor.run {
            ViewModel().count = 2
            #expect(ViewModel().count == 2)
        }
        let counter = Counter()
        #expect(await counter.increment() == 1)
        #expect(await counter.increment() == 2)
    }

    /// A wrapper's backing storage is a `var`, which a `Sendable` class may not
    /// have; such a class keeps the projection in a `let` instead.
    @Test func aSendableClassKeepsTheProjectionInALet() {
        final class SendableModel: Sendable {
            let count = Stored(StorageKey<Int>("sendableCount", default: 1), in: SharedCountingStore.default).projectedValue
        }
        let model = SendableModel()
        #expect(model.count.value == 1)
        model.count.value = 2
        #expect(SendableModel().count.value == 2)
    }

    @Test func initialisersWithoutAStoreUseTheDefaultInstance() {
        struct DefaultSettings: Sendable {
            @Stored<SharedCountingStore, Int>("defaultInstance.count") var count = 4
            @Stored<SharedCountingStore, String?>("defaultInstance.name") var name: String?
        }
        let settings = DefaultSettings()
        settings.count = 5
        settings.name = "Ada"
        #expect(SharedCountingStore.default.storedValue(forKey: "defaultInstance.count", .granted) == 5)
        let name: String? = SharedCountingStore.default.values[dynamicMember: "defaultInstance.name"]
        #expect(name == "Ada")
    }
}
