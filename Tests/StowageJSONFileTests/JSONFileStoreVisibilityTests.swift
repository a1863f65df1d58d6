import Foundation
import Stowage
import StowageJSONFile
import StowageTestSupport
import Testing

/// Keys that change together (a reread file, a transaction, a multi-key
/// swap) become visible together: once a read returns one key's new value,
/// no later read of a key changed with it returns its old one.
///
/// Each test reads the other key from inside an observer of one key. Keys are
/// announced one after another, so before the fix the first key's observer
/// found the other key's reference still caching the old value.
struct JSONFileStoreVisibilityTests {
    @Test func aFileRereadWithTwoChangedKeysShowsBothOrNeither() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"mode": "old", "level": "old"}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        let mode = store.reference(forKey: "mode", as: String.self), level = store.reference(forKey: "level", as: String.self)
        #expect(mode.value == "old" && level.value == "old")
        let sightings = Sightings()
        let tokens = sightings.watch(mode, level)
        defer { tokens.forEach { $0.cancel() } }

        writeFile(directory.file(), #"{"mode": "new", "level": "new"}"#)
        try store.reload()
        #expect(sightings.all.sorted() == ["level=new saw mode=new", "mode=new saw level=new"])
    }

    @Test func aTransactionOfThisProcessShowsAllItsKeysOrNone() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try store.set("old", forKey: "mode")
        try store.set("old", forKey: "level")
        let mode = store.reference(forKey: "mode", as: String.self), level = store.reference(forKey: "level", as: String.self)
        #expect(mode.value == "old" && level.value == "old")
        let sightings = Sightings()
        let tokens = sightings.watch(mode, level)
        defer { tokens.forEach { $0.cancel() } }

        try store.transaction { transaction in
            try transaction.set("new", forKey: "mode")
            try transaction.set("new", forKey: "level")
        }
        #expect(sightings.all.sorted() == ["level=new saw mode=new", "mode=new saw level=new"])
    }

    @Test func aMigrationShowsTheNewKeyOnlyWithTheOldOneGone() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"old": "value"}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        let old = store.reference(forKey: "old", as: String.self), new = store.reference(forKey: "new", as: String.self)
        #expect(old.value == "value" && new.value == nil)
        let sightings = Sightings()
        let tokens = sightings.watch(old, new)
        defer { tokens.forEach { $0.cancel() } }

        #expect(try store.migrateValue(from: "old", to: "new") == .migrated)
        #expect(sightings.all.sorted() == ["new=value saw old=nil", "old=nil saw new=value"])
    }

    /// A layered store and a namespace over the file have references of their
    /// own, told by the file's store; they too see both keys or neither.
    @Test func storesBuiltOnTheFileShowBothKeysOrNeither() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"app.mode": "old", "app.level": "old"}"#)
        let file = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        let layered = LayeredStore([file])
        let namespace = file.namespace("app")
        let layeredSightings = Sightings(), namespaceSightings = Sightings()
        let layeredMode = layered.reference(forKey: "app.mode", as: String.self), layeredLevel = layered.reference(forKey: "app.level", as: String.self)
        let mode = namespace.reference(forKey: "mode", as: String.self), level = namespace.reference(forKey: "level", as: String.self)
        #expect(layeredMode.value == "old" && layeredLevel.value == "old" && mode.value == "old" && level.value == "old")
        let tokens = layeredSightings.watch(layeredMode, layeredLevel) + namespaceSightings.watch(mode, level)
        defer { tokens.forEach { $0.cancel() } }

        writeFile(directory.file(), #"{"app.mode": "new", "app.level": "new"}"#)
        try file.reload()
        #expect(layeredSightings.all.sorted() == ["app.level=new saw app.mode=new", "app.mode=new saw app.level=new"])
        #expect(namespaceSightings.all.sorted() == ["level=new saw mode=new", "mode=new saw level=new"])
    }
}
