import Foundation
import StowageJSONFile
import StowagePostgres
import Testing

/// How changes reach a store besides the notification of each row: the
/// periodic full read, a `TRUNCATE`, tables made by an older release.
@Suite(.runsStores)
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

    /// Makes tables as the first release did, without notifications and write procedures, in a schema of their own.
    private func makeTablesOfTheFirstRelease(_ database: TestDatabase) async throws -> String {
        let schema = "first_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try database.psql(
            """
            DROP TRIGGER notify_change ON \(schema).entries; DROP TRIGGER notify_truncate ON \(schema).entries;
            DROP FUNCTION \(schema).notify_change(); DROP FUNCTION \(schema).change_notice(text, text, bigint, boolean, text);
            DELETE FROM \(schema).schema_versions WHERE component = 'notifications';
            DROP PROCEDURE \(schema).write_committed; DROP PROCEDURE \(schema).replace_committed; DROP PROCEDURE \(schema).swap_committed;
            DROP PROCEDURE \(schema).write_one_committed; DELETE FROM \(schema).schema_versions WHERE component = 'writes'
            """)
        return schema
    }

    /// Write procedures of version 1 (no `swap_committed`, whose
    /// compare-and-swap answers a miss with the row) gain it when a store
    /// opens the tables, and keep `replace_committed`, which servers of that
    /// release call during a rolling upgrade.
    @Test func writeProceduresOfVersion1GainTheSwapAndKeepWhatTheyHad() async throws {
        let database = try TestDatabase.shared()
        let schema = "writes1_\(UUID().uuidString.prefix(8).lowercased())"
        let first = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try await first.setAndCommit(1, forKey: "count")
        try database.psql(
            """
            DROP PROCEDURE \(schema).swap_committed; DROP PROCEDURE \(schema).write_one_committed;
            UPDATE \(schema).schema_versions SET version = 1 WHERE component = 'writes'
            """)
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        #expect(try database.psql("SELECT version FROM \(schema).schema_versions WHERE component = 'writes'") == "3")
        #expect(
            try database.psql("SELECT proname || ' ' || pronargs FROM pg_proc WHERE pronamespace = '\(schema)'::regnamespace AND prokind = 'p' ORDER BY 1")
                == "replace_committed 6\nswap_committed 8\nwrite_committed 7\nwrite_one_committed 5")
        try database.psql("UPDATE \(schema).entries SET value = '5' WHERE namespace = 'one' AND key = 'count'")
        try await store.reference(forKey: "count", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 }
        #expect(try database.psql("SELECT value FROM \(schema).entries WHERE namespace = 'one' AND key = 'count'") == "6")
    }

    /// Tables made by the first release (no notification trigger, no write
    /// procedures) gain them when a store opens them, and changes are pushed from then on; the
    /// tables' own version stays, so that the first release still opens them.
    @Test func tablesOfTheFirstReleaseGainTheNotificationTrigger() async throws {
        let database = try TestDatabase.shared()
        let schema = try await makeTablesOfTheFirstRelease(database)
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        #expect(
            try database.psql("SELECT component || ' ' || version FROM \(schema).schema_versions ORDER BY component")
                == "entries 1\nhistory 1\nnotifications 2\nwrites 3"
        )
        #expect(try database.psql("SELECT count(*) FROM pg_proc WHERE pronamespace = '\(schema)'::regnamespace AND prokind = 'p'") == "4")
        #expect(try database.psql("SELECT count(*) FROM pg_trigger WHERE tgrelid = '\(schema).entries'::regclass AND tgname LIKE 'notify_%'") == "2")
        _ = try await firstElement(of: store.statusUpdates()) { $0 == Self.live }
        let changes = store.changes
        try database.psql("INSERT INTO \(schema).entries (namespace, key, value) VALUES ('one', 'motto', '\"pushed\"')")
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == "pushed" }
    }

    /// A role that may use the tables but not add triggers to them opens
    /// them without notifications: it says so, naming what to do, never
    /// claims to receive changes, and reads and writes as usual, a
    /// compare-and-swap included, with statements where it may not add the
    /// write procedures.
    @Test func aRoleThatMayNotAddTheTriggersOpensTheTablesWithoutThem() async throws {
        let database = try TestDatabase.shared()
        let schema = try await makeTablesOfTheFirstRelease(database)
        let recorder = RecordedReports.errors
        let (store, password, _) = try await database.openStoreAsRestrictedRole(schema: schema)
        let report = await recorder.first { $0.message.contains("\"\(schema)\" have no notification triggers") }
        #expect(report?.message.contains("The tables' owner adds the triggers by opening a store once") == true, "\(report?.message ?? "no report")")
        #expect(report?.message.contains(password) == false)
        try await store.setAndCommit("written", forKey: "motto")
        #expect(try database.psql("SELECT value FROM \(schema).entries WHERE key = 'motto'") == "\"written\"")
        let counter = store.reference(forKey: "counter", as: Int.self)
        for _ in 0..<3 { try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
        #expect(try database.psql("SELECT value FROM \(schema).entries WHERE key = 'counter'") == "3")
        #expect(store.status.receivesChanges == false)
        #expect(try database.psql("SELECT count(*) FROM \(schema).schema_versions WHERE component IN ('notifications', 'writes')") == "0")
    }
}

extension PostgresStorePushTests {
    /// A role a DBA may not call the write procedures (`REVOKE EXECUTE …
    /// FROM PUBLIC`, which hardened databases do) still writes and
    /// modifies, with statements: the procedures only save a round trip.
    @Test func aRoleThatMayNotCallTheWriteProceduresWritesWithStatements() async throws {
        let database = try TestDatabase.shared()
        let schema = "revoked_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try database.psql(
            """
            REVOKE EXECUTE ON PROCEDURE \(schema).write_committed, \(schema).replace_committed, \(schema).swap_committed,
                \(schema).write_one_committed FROM PUBLIC
            """)
        let (store, _, _) = try await database.openStoreAsRestrictedRole(schema: schema)
        try await store.setAndCommit("written", forKey: "motto")
        let counter = store.reference(forKey: "counter", as: Int.self)
        for _ in 0..<3 { try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
        #expect(try database.psql("SELECT key || '=' || value FROM \(schema).entries WHERE namespace = 'one' ORDER BY key") == "counter=3\nmotto=\"written\"")
    }
}

extension PostgresStorePushTests {
    /// Procedures dropped while a store runs (an operator's cleanup, an
    /// older release's migration) lose no write: the call fails before
    /// writing, and the store sends that write, and every later one, as
    /// statements. Before, the database's "does not exist" counted as a
    /// refusal for good, and the writes were dropped.
    @Test func writeProceduresDroppedWhileTheStoreRunsLoseNoWrite() async throws {
        let database = try TestDatabase.shared()
        let schema = "dropped_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try await store.setAndCommit(1, forKey: "before")
        try database.psql("DROP PROCEDURE \(schema).write_committed; DROP PROCEDURE \(schema).swap_committed; DROP PROCEDURE \(schema).write_one_committed")
        let recorder = RecordedReports.errors
        try await store.setAndCommit(2, forKey: "after")
        let counter = store.reference(forKey: "counter", as: Int.self)
        for _ in 0..<3 { try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
        #expect(
            try database.psql("SELECT key || '=' || value FROM \(schema).entries WHERE namespace = 'one' ORDER BY key") == "after=2\nbefore=1\ncounter=3")
        #expect(recorder.all.filter { $0.message.contains(schema) }.isEmpty)
    }
}

extension PostgresStore {
    /// How many keys reads find now.
    fileprivate var storedEntriesCount: Int { (try? snapshot().entries.count) ?? -1 }
}
