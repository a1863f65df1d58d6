import Foundation
import StowagePostgres
import Testing

/// Conflicts and refusals the database decides: a multi-key compare-and-swap
/// that loses a race, a revision that went back, a write refused among good
/// ones. Each test keeps its tables in a schema of its own where it changes them.
@Suite(.runsStores)
struct PostgresStoreConflictTests {
    /// A migration (a multi-key compare-and-swap) whose cache is stale lost
    /// the race in the database; that threw a `.timedOut` "unknown outcome"
    /// error, since the conflict came back wrapped in the transaction's error.
    /// It must answer "try again", and the migration then converts the newer value.
    @Test func aMultiKeyCompareAndSwapThatLosesARaceTriesAgain() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let stale = try await database.openStore(namespace: namespace)
        let other = try await database.openStore(namespace: namespace)
        try await stale.setAndCommit(1, forKey: "count")
        try await other.reload()
        try await other.setAndCommit(2, forKey: "count")

        let outcome = try stale.migrateValue(from: "count", as: Int.self, to: "label", as: String.self) { "count \($0)" }
        #expect("\(outcome)".contains("migrated"), "\(outcome)")
        let fresh = try await database.openStore(namespace: namespace)
        #expect(try fresh.value(forKey: "label", as: String.self) == "count 2")
        #expect(try fresh.value(forKey: "count", as: Int.self) == nil)
    }

    /// A multi-key compare-and-swap the database answered "a row moved on"
    /// wrote nothing, even when reading the rows' new values then fails:
    /// the caller is told so. A row-level policy here refuses (SQLSTATE
    /// 42501) every read by key, and only those. Before, the error said
    /// whether the swap was applied was unknown.
    @Test func aSwapOfSeveralKeysWhoseRowMovedOnSaysNothingWasWrittenWhenTheReadAfterFails() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        var options = PostgresStore.Options(operationTimeout: .seconds(5))
        options.listensForChanges = false
        options.resynchronizationInterval = nil
        let store = try await server.openStore(namespace: TestDatabase.uniqueNamespace(), options: options)
        try store.set(1, forKey: "count")
        try await store.setAndCommit(1, forKey: "label")
        // Moved on behind the store's back: it hears no notices.
        try server.psql("UPDATE stowage.entries SET value = '2' WHERE namespace = '\(store.namespace)' AND key = 'count'")
        try server.psql(
            """
            CREATE FUNCTION stowage.refuse_reads_by_key() RETURNS boolean LANGUAGE plpgsql AS $$
            BEGIN
                IF current_query() LIKE '%= ANY(%' THEN
                    RAISE EXCEPTION 'reads by key are refused here' USING ERRCODE = 'insufficient_privilege';
                END IF;
                RETURN true;
            END $$;
            CREATE POLICY everything_but_reads_by_key ON stowage.entries USING (stowage.refuse_reads_by_key());
            ALTER TABLE stowage.entries ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY
            """)

        let error = #expect(throws: StorageError.self) { try store.migrateValue(from: "count", to: "label") }
        #expect(error?.message.contains("nothing was written") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("unknown") == false, "\(error?.message ?? "")")
        let table = try await server.tableEntries(namespace: store.namespace)
        #expect(table["count"] == 2)
        #expect(table["label"] == 1)
    }

    /// A one-key compare-and-swap that finds the row moved on is answered
    /// with the row as it is, so the next try starts from it without a
    /// statement of its own: under contention that read was a second round
    /// trip per miss. The store here hears no notices, so only the answer
    /// can have brought the operator's value.
    @Test func aModifyThatFindsTheRowMovedOnTakesItFromTheAnswer() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        var options = PostgresStore.Options()
        options.listensForChanges = false
        options.resynchronizationInterval = nil
        let store = try await server.openStore(namespace: namespace, options: options)
        try await store.setAndCommit(1, forKey: "count")
        try server.psql("UPDATE stowage.entries SET value = '5' WHERE namespace = '\(namespace)' AND key = 'count'")
        let reads = { try server.psql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE '%key = ANY%'") }
        let readsBefore = try reads()

        var seen: [Int] = []
        let result = try await store.reference(forKey: "count", as: Int.self).modifyAndCommit { count in
            seen.append(count ?? 0)
            let next = (count ?? 0) + 1
            count = next
            return next
        }
        #expect(seen == [1, 5], "the closure ran with the cached value, then with the row the answer brought")
        #expect(result == 6)
        #expect(try server.psql("SELECT value FROM stowage.entries WHERE namespace = '\(namespace)' AND key = 'count'") == "6")
        #expect(try reads() == readsBefore, "the store read the row with a statement of its own")
    }

    /// After the database's revisions went back (a restored backup), a
    /// modify retried forever against a revision that no longer existed.
    @Test func aModifyFollowsARevisionThatWentBack() async throws {
        let database = try TestDatabase.shared()
        let schema = "restore_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "n", options: .init(schema: schema))
        let counter = store.reference(forKey: "counter", as: Int.self)
        for _ in 0..<5 { try counter.modify { $0 = ($0 ?? 0) + 1 } }
        try await database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "ALTER SEQUENCE \(schema).revisions RESTART WITH 1"))
            try await client.query(PostgresQuery(unsafeSQL: "UPDATE \(schema).entries SET value = '100' WHERE key = 'counter'"))
        }
        try counter.modify { $0 = ($0 ?? 0) + 1 }
        let fresh = try await database.openStore(namespace: "n", options: .init(schema: schema))
        #expect(try fresh.value(forKey: "counter", as: Int.self) == 101)
    }

    /// One key the database refuses made it refuse the whole batch, and the
    /// good keys' writes were dropped; a flush waiting for a later write
    /// returned as if all were committed.
    @Test func aRefusedWriteFailsTheFlushAndSparesTheOthers() async throws {
        let database = try TestDatabase.shared()
        let schema = "refusal_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "n", options: .init(schema: schema))
        try await database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(schema).entries ADD CONSTRAINT no_forbidden CHECK (key <> 'forbidden')"))
        }
        let reports = RecordedReports.errors
        try store.set(1, forKey: "fine")
        try store.set("x", forKey: "forbidden")
        try store.set(2, forKey: "alsoFine")
        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect(error?.key == "forbidden")
        #expect(error?.message.contains("no_forbidden") == true, "\(error?.message ?? "")")
        #expect(try store.value(forKey: "forbidden", as: String.self) == nil, "reads show what the database holds")
        #expect(await reports.first { $0.key == "forbidden" } != nil)

        let fresh = try await database.openStore(namespace: "n", options: .init(schema: schema))
        #expect(try fresh.value(forKey: "fine", as: Int.self) == 1)
        #expect(try fresh.value(forKey: "alsoFine", as: Int.self) == 2)
    }

    /// A key too long for the primary key's index is refused when written,
    /// naming it, instead of making the database refuse a whole batch later.
    @Test func aKeyTooLongForTheIndexIsRefusedAtOnce() async throws {
        let database = try TestDatabase.shared()
        let store = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        let key = String(repeating: "k", count: 3_000)
        let error = #expect(throws: StorageError.self) { try store.set(1, forKey: key) }
        #expect(error?.key?.hasPrefix("kkkk") == true)
        #expect(error?.message.contains("2600") == true || error?.message.contains("2,600") == true, "\(error?.message ?? "")")
        #expect(store.queuedWriteCount == 0)
    }
}
