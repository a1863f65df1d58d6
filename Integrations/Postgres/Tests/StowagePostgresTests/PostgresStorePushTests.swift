import Foundation
import StowageJSONFile
import StowagePostgres
import Testing

/// How changes reach a store besides the notification of each row: the
/// periodic full read, a `TRUNCATE`, tables made by an older release.
struct PostgresStorePushTests {
    static let live = PostgresStore.Status(connection: .connected, receivesChanges: true)

    /// Without listening (behind a pooler that can not), the periodic full
    /// read brings a change made elsewhere; the store never claims to receive changes.
    @Test func thePeriodicFullReadBringsChangesToAStoreThatDoesNotListen() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(
            namespace: namespace, options: .init(listensForChanges: false, resynchronizationInterval: .milliseconds(200)))
        #expect(store.status == .init(connection: .connected, receivesChanges: false))
        let changes = store.changes
        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('\(namespace)', 'motto', '\"read again\"')")
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == "read again" }
        let age = try #require(store.cacheAge)
        #expect(age < .seconds(30), "the last full read was moments ago")
        #expect(store.status.receivesChanges == false)
    }

    /// A `TRUNCATE` names no row: every store reads its namespace again and finds its keys gone.
    @Test func aTruncatedTableEmptiesEveryStore() async throws {
        let database = try TestDatabase.shared()
        let schema = "truncated_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        _ = try await firstElement(of: store.statusUpdates()) { $0 == Self.live }
        try await store.setAndCommit(1, forKey: "first")
        try await store.setAndCommit(2, forKey: "second")
        let changes = store.changes
        try database.psql("TRUNCATE \(schema).entries")
        _ = try await firstElement(of: changes) { _ in store.storedEntriesCount == 0 }
        #expect(try store.value(forKey: "first", as: Int.self) == nil)
    }

    /// Tables made by the first release (no notification trigger) are
    /// upgraded when a store opens them, and changes are pushed from then on.
    @Test func tablesOfTheFirstVersionGainTheNotificationTrigger() async throws {
        let database = try TestDatabase.shared()
        let schema = "upgraded_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try database.psql("""
            DROP TRIGGER notify_change ON \(schema).entries; DROP TRIGGER notify_truncate ON \(schema).entries;
            DROP FUNCTION \(schema).notify_change(); UPDATE \(schema).schema_versions SET version = 1
            """)
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        #expect(try database.psql("SELECT version FROM \(schema).schema_versions") == "2")
        #expect(try database.psql("SELECT count(*) FROM pg_trigger WHERE tgrelid = '\(schema).entries'::regclass AND tgname LIKE 'notify_%'") == "2")
        _ = try await firstElement(of: store.statusUpdates()) { $0 == Self.live }
        let changes = store.changes
        try database.psql("INSERT INTO \(schema).entries (namespace, key, value) VALUES ('one', 'motto', '\"pushed\"')")
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == "pushed" }
    }
}

extension PostgresStore {
    /// How many keys reads find now.
    fileprivate var storedEntriesCount: Int { (try? snapshot().count) ?? -1 }
}
