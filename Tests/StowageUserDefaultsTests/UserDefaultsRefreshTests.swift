import Foundation
import StowageTestSupport
import StowageUserDefaults
import Testing

/// What `refresh()` and stores sharing a domain see of each other's writes.
struct UserDefaultsRefreshTests {
    let suites = TemporarySuites()

    /// On Linux the store compares what `UserDefaults` holds with the file it
    /// reads itself, and lists the domain, both as boxed numbers. A boxed 1
    /// or 0 once read as a `Bool`: listed so, and announced as changed by
    /// every refresh.
    @Test func aRefreshOfAnUnchangedFileAnnouncesNothing() async throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        try store.set(1, forKey: "one")
        try store.set(0, forKey: "zero")
        try store.set(2.0, forKey: "two")
        try store.set(true, forKey: "flag")
        let changes = store.changes

        try store.refresh()
        try store.refresh()
        // Announced by hand after the refreshes: whatever the stream gives before it, the refreshes announced.
        store.announceChange(forKey: "sentinel")
        var announced: [StoreChange] = []
        for await change in changes {
            if change == .key("sentinel") { break }
            announced.append(change)
        }
        #expect(announced.isEmpty, "an unchanged file was announced as \(announced)")

        // Listing reads the domain too.
        let entries = try store.storedEntries(.granted)
        #expect(entries["one"] == .signedInteger(1))
        #expect(entries["zero"] == .signedInteger(0))
        #expect(entries["flag"] == .bool(true))
        #expect(try store.value(forKey: "two", as: Double.self) == 2.0)
    }

    /// Two stores over one suite: a write through one reaches the other's
    /// references at once (on Linux UserDefaults says nothing of it).
    @Test func aWriteThroughOneStoreReachesAnotherOverTheSameSuite() throws {
        defer { suites.removeAll() }
        let first = try suites.makeStore()
        let second = try UserDefaultsStore(suiteName: try #require(first.suiteName))
        let reference = second.reference(forKey: "count", as: Int.self)
        #expect(reference.value == nil)

        try first.set(5, forKey: "count")
        #expect(reference.value == 5)
        try first.removeValue(forKey: "count")
        #expect(reference.value == nil)
    }
}
