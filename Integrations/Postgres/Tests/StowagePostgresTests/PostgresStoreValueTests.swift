import Foundation
import StowageJSON
import StowagePostgres
import Testing

/// What the store keeps and how it keeps it: exact values, namespaces,
/// removals, the schema's version, and what PostgreSQL can not hold.
@Suite(.runsStores)
struct PostgresStoreValueTests {
    /// Values that `jsonb` or a careless encoding would change come back as written, from a second store.
    @Test func valuesReadBackExactlyFromAnotherStore() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        let date = Date(timeIntervalSince1970: 1_764_000_000.123)
        let huge = String(repeating: "é🙂\u{0}", count: 100_000)
        try store.set(Int64.min, forKey: "min")
        try store.set(UInt64.max, forKey: "max")
        try store.set(-0.0, forKey: "negativeZero")
        try store.set(date, forKey: "date")
        try store.set(huge, forKey: "huge")
        try store.set(["a": [1, 2], "b": []], forKey: "nested")
        try await store.commitPendingWrites()

        let other = try await database.openStore(namespace: namespace)
        #expect(try other.value(forKey: "min", as: Int64.self) == .min)
        #expect(try other.value(forKey: "max", as: UInt64.self) == .max)
        #expect(try other.value(forKey: "negativeZero", as: Double.self)?.sign == .minus)
        #expect(try other.value(forKey: "date", as: Date.self).map { abs($0.timeIntervalSince(date)) < 0.000_5 } == true)
        #expect(try other.value(forKey: "huge", as: String.self) == huge)
        #expect(try other.value(forKey: "nested", as: [String: [Int]].self) == ["a": [1, 2], "b": []])
    }

    /// The column is text holding JSON: `-0.0` is written as such, which a `jsonb` column would turn into `0`.
    @Test func theColumnHoldsExactJSONText() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        try await store.setAndCommit(-0.0, forKey: "zero")
        let text = try await database.withClient { client in
            var found: String?
            for try await value in try await client.query("SELECT value FROM stowage.entries WHERE namespace = \(namespace) AND key = 'zero'").decode(
                String.self)
            {
                found = value
            }
            return found
        }
        #expect(text == "-0.0")
    }

    /// Stores with different namespaces share the table and never see each other's keys.
    @Test func namespacesShareTheTableButNotTheirKeys() async throws {
        let database = try TestDatabase.shared()
        let first = try await database.openStore(namespace: TestDatabase.uniqueNamespace("first"))
        let second = try await database.openStore(namespace: TestDatabase.uniqueNamespace("second"))
        try await first.setAndCommit("first's", forKey: "owner")
        try await second.setAndCommit("second's", forKey: "owner")
        try await first.reload()
        #expect(try first.value(forKey: "owner", as: String.self) == "first's")
        #expect(try first.snapshot().entries.keys.sorted() == ["owner"])
    }

    /// A removal keeps its row, marked removed, so a later resynchronisation
    /// tells it from a key never seen; a store loading afterwards sees the key absent.
    @Test func aRemovalIsCarriedAsARowMarkedRemoved() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        try await store.setAndCommit(1, forKey: "gone")
        try store.removeValue(forKey: "gone")
        try await store.commitPendingWrites()

        let row = try await database.withClient { client in
            var found: (String?, Bool)?
            for try await row in try await client.query("SELECT value, removed FROM stowage.entries WHERE namespace = \(namespace) AND key = 'gone'").decode(
                (String?, Bool).self)
            {
                found = row
            }
            return found.map { [$0.0 ?? "NULL", "\($0.1)"] }
        }
        #expect(row == ["NULL", "true"])
        let other = try await database.openStore(namespace: namespace)
        #expect(try other.value(forKey: "gone", as: Int.self) == nil)
    }

    /// The tables record their version, so a later release can migrate them;
    /// a version newer than this release knows is refused, not guessed at.
    @Test func theSchemaHasAVersionAndANewerOneIsRefused() async throws {
        let database = try TestDatabase.shared()
        _ = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        let version = try await database.withClient { client in
            var found: Int32?
            for try await value in try await client.query("SELECT version FROM stowage.schema_versions WHERE component = 'entries'").decode(Int32.self) {
                found = value
            }
            return found
        }
        #expect(version == 1)

        let schema = "future_\(UUID().uuidString.prefix(8).lowercased())"
        try await database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
            try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(schema).schema_versions (component text PRIMARY KEY, version integer NOT NULL)"))
            try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(schema).schema_versions VALUES ('entries', 2)"))
        }
        let store = try PostgresStore(configuration: database.configuration, namespace: "x", options: .init(schema: schema))
        try RunningStores.run(store)
        // The refusal ends the wait at once; the bound is for a machine loaded by the other suites (2 s ran out once so).
        let error = await #expect(throws: StorageError.self) { try await store.ready(timeout: .seconds(30)) }
        #expect(error?.message.contains("at version 2, newer than the 1 this release") == true, "\(error?.message ?? "")")
    }

    /// What PostgreSQL text or JSON can not hold is an error naming the key, and nothing is written.
    @Test func whatCanNotBeKeptIsAnErrorNamingTheKey() async throws {
        let database = try TestDatabase.shared()
        let store = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        let nul = #expect(throws: StorageError.self) { try store.set(1, forKey: "bad\u{0}key") }
        #expect(nul?.key == "bad\u{0}key")
        #expect(nul?.message.contains("NUL") == true)
        let nan = #expect(throws: StorageError.self) { try store.set(Double.nan, forKey: "ratio") }
        #expect(nan?.key == "ratio")
        #expect(nan?.code == .encodingFailed)
        #expect(store.queuedWriteCount == 0)
        #expect(try store.value(forKey: "ratio", as: Double.self) == nil)
    }

    /// Keys compare as Swift strings do: `é` as one scalar or as `e` and an
    /// accent names one row, whichever spelling wrote it.
    @Test func canonicallyEquivalentKeysNameOneRow() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        try await store.setAndCommit(1, forKey: "caf\u{E9}")
        try await store.setAndCommit(2, forKey: "cafe\u{301}")
        let other = try await database.openStore(namespace: namespace)
        #expect(try other.value(forKey: "caf\u{E9}", as: Int.self) == 2)
        #expect(try other.snapshot().entries.count == 1)
    }

    /// A row an operator filled with text that is not JSON is reported naming
    /// the key, and the other keys load.
    @Test func aRowThatIsNotJSONIsReportedAndTheOthersLoad() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        try store.set(1, forKey: "good")
        try store.set(2, forKey: "bad")
        try await store.commitPendingWrites()
        try await database.withClient { client in
            try await client.query("UPDATE stowage.entries SET value = 'not json' WHERE namespace = \(namespace) AND key = 'bad'")
        }
        let reports = RecordedReports.errors  // before the store loads, so its report is seen
        let other = try await reports.recording { try await database.openStore(namespace: namespace) }
        #expect(try other.value(forKey: "good", as: Int.self) == 1)
        #expect(try other.value(forKey: "bad", as: Int.self) == nil)
        let report = await reports.first { $0.key == "bad" && $0.code == .invalidJSON }
        #expect(report?.code == .invalidJSON)
        #expect(report?.message.contains("does not hold JSON text") == true, "\(report?.message ?? "none")")

        // A modify of that key can not compare with what the row holds: it fails naming the key, rather than trying forever.
        let modifyError = #expect(throws: StorageError.self) { try other.reference(forKey: "bad", as: Int.self).modify { $0 = 5 } }
        #expect(modifyError?.code == .invalidJSON)
        #expect(modifyError?.key == "bad")
    }
}
