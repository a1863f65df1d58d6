import StowageInMemory
import StowageTestSupport
import Testing

/// Keys the in-memory store changes together (a multi-key swap, a restore)
/// become visible together: once a read returns one key's new value, no
/// later read of a key changed with it returns its old one. The flag
/// module's `update(with:)` relies on it, so that readers never see half of
/// a payload.
///
/// Each test reads the other key from inside an observer of one key. Keys are
/// announced one after another, so without the store dropping the cached
/// values under its lock, the first key's observer found the other key's
/// reference still caching the old value.
struct InMemoryStoreVisibilityTests {
    @Test func aSnapshotWrittenToTheStoreShowsAllItsKeysOrNone() throws {
        let store: InMemoryStore = ["mode": "old", "level": "old"]
        let mode = store.reference(forKey: "mode", as: String.self), level = store.reference(forKey: "level", as: String.self)
        #expect(mode.value == "old" && level.value == "old")
        let sightings = Sightings()
        let tokens = sightings.watch(mode, level)
        defer { tokens.forEach { $0.cancel() } }

        try StoreSnapshot(["mode": "new", "level": "new"]).write(to: store)
        #expect(sightings.all.sorted() == ["level=new saw mode=new", "mode=new saw level=new"])
    }

    @Test func aRestoreShowsAllItsKeysOrNone() {
        let store: InMemoryStore = ["mode": "old", "level": "old"]
        let mode = store.reference(forKey: "mode", as: String.self), level = store.reference(forKey: "level", as: String.self)
        #expect(mode.value == "old" && level.value == "old")
        let sightings = Sightings()
        let tokens = sightings.watch(mode, level)
        defer { tokens.forEach { $0.cancel() } }

        store.restore(["mode": "new", "level": "new"])
        #expect(sightings.all.sorted() == ["level=new saw mode=new", "mode=new saw level=new"])
    }

    @Test func aMigrationShowsTheNewKeyOnlyWithTheOldOneGone() throws {
        let store: InMemoryStore = ["old": "value"]
        let old = store.reference(forKey: "old", as: String.self), new = store.reference(forKey: "new", as: String.self)
        #expect(old.value == "value" && new.value == nil)
        let sightings = Sightings()
        let tokens = sightings.watch(old, new)
        defer { tokens.forEach { $0.cancel() } }

        #expect(try store.migrateValue(from: "old", to: "new") == .migrated)
        #expect(sightings.all.sorted() == ["new=value saw old=nil", "old=nil saw new=value"])
    }
}
