import Foundation
import Logging
import PostgresNIO
import Stowage
import StowageHistory
import StowagePostgres
import Testing

/// The history of changes: every change of the table, by the store or by
/// an operator in `psql`, recorded in its transaction with who made it;
/// secret keys' values never recorded; pruning to a retention.
@Suite(.runsStores)
struct PostgresStoreHistoryTests {
    static let options = PostgresStore.Options(operationTimeout: .seconds(5), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(500))

    /// Writes with an author, without one, a removal and an operator's
    /// `psql` UPDATE: each is an entry with the old and new value and who made it.
    @Test func everyChangeIsRecordedWithItsValuesAndWhoMadeIt() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        var options = Self.options
        options.author = "checkout-service"
        let store = try await database.openStore(namespace: namespace, options: options)

        try await ChangeAuthor.$name.withValue("alice") { try await store.setAndCommit(10, forKey: "limit") }
        try await store.setAndCommit(20, forKey: "limit")
        try await ChangeAuthor.$name.withValue("bob") {
            try store.removeValue(forKey: "limit")
            try await store.commitPendingWrites()
        }
        try database.psql("UPDATE stowage.entries SET value = '30', removed = false WHERE namespace = '\(namespace)' AND key = 'limit'")
        try await store.setAndCommit("other", forKey: "motto")

        let changes = try await store.changes(forKey: "limit")
        #expect(changes.map(\.newValue) == [30, nil, 20, 10], "newest first")
        #expect(changes.map(\.oldValue) == [nil, 20, 10, nil])
        #expect(changes.map(\.hadValue) == [false, true, true, false])
        #expect(changes.map(\.hasValue) == [true, false, true, true])
        #expect(changes.map(\.author) == [nil, "bob", "checkout-service", "alice"])
        #expect(changes[0].origin.contains("application psql"), "\(changes[0].origin)")
        #expect(changes[1].origin.contains("application stowage"), "\(changes[1].origin)")
        #expect(changes.map(\.madeBy)[0] == changes[0].origin)
        #expect(changes.allSatisfy { $0.kind == .change && !$0.isRedacted && $0.key == "limit" })
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.id > $1.id && $0.date >= $1.date })

        let everything = try await store.changes()
        #expect(everything.map(\.key) == ["motto", "limit", "limit", "limit", "limit"])
        #expect(try await store.changes(limit: 2).count == 2)
        let recent = try await store.changes(since: changes[0].date)
        #expect(recent.map(\.key) == ["motto", "limit"])
        // A changed value of one writer in a batch of another's: each keeps its own author.
        try ChangeAuthor.$name.withValue("carol") { try store.set(1, forKey: "a") }
        try ChangeAuthor.$name.withValue("dave") { try store.set(2, forKey: "b") }
        try await store.commitPendingWrites()
        #expect(try await store.changes(forKey: "a").first?.author == "carol")
        #expect(try await store.changes(forKey: "b").first?.author == "dave")
    }

    /// A compare-and-swap records its author as a write does, and an
    /// operator's DELETE and TRUNCATE are recorded as removals.
    @Test func modificationsDeletionsAndTruncationsAreRecorded() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace, options: Self.options)
        let counter = store.reference(forKey: "counter", as: Int.self)
        try await ChangeAuthor.$name.withValue("incrementer") {
            for _ in 0..<3 { try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
        }
        try await store.setAndCommit("x", forKey: "other")
        try database.psql("DELETE FROM stowage.entries WHERE namespace = '\(namespace)' AND key = 'counter'")
        try database.psql("TRUNCATE stowage.entries")

        let counterChanges = try await store.changes(forKey: "counter")
        #expect(counterChanges.map(\.newValue) == [nil, 3, 2, 1])
        #expect(counterChanges.map(\.author) == [nil, "incrementer", "incrementer", "incrementer"])
        #expect(counterChanges[0].hadValue && !counterChanges[0].hasValue)
        let truncated = try await store.changes(forKey: "other")
        #expect(truncated.map(\.newValue) == [nil, "x"])
        #expect(truncated.first?.oldValue == "x")
    }

    /// A secret key's values never reach the history's table, in the clear
    /// or otherwise: the entry says it changed, and who changed it.
    @Test func secretKeysAreRecordedWithoutTheirValues() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        var options = Self.options
        options.secretKeys = ["api-token", "secrets.*"]
        let store = try await database.openStore(namespace: namespace, options: options)
        #expect(store.isSecret(key: "api-token") && store.isSecret(key: "secrets.database") && !store.isSecret(key: "secrets"))
        #expect(!store.isSecret(key: "api-token-hint"))

        try await ChangeAuthor.$name.withValue("ops") {
            try await store.setAndCommit("hunter2", forKey: "api-token")
            try await store.setAndCommit("s3cret", forKey: "secrets.database")
            try await store.setAndCommit("visible", forKey: "secrets")
        }
        try database.psql("UPDATE stowage.entries SET value = '\"psql-secret\"' WHERE namespace = '\(namespace)' AND key = 'api-token'")

        let stored = try database.psql(
            "SELECT count(*) FROM stowage.history WHERE namespace = '\(namespace)' AND (old_value LIKE '%secret%' OR new_value LIKE '%secret%' OR new_value LIKE '%hunter2%')"
        )
        #expect(stored == "0")
        let token = try await store.changes(forKey: "api-token")
        #expect(token.count == 2)
        #expect(token.allSatisfy { $0.isRedacted && $0.oldValue == nil && $0.newValue == nil })
        #expect(token.map(\.hadValue) == [true, false] && token.map(\.hasValue) == [true, true])
        #expect(token.last?.author == "ops")
        #expect(try await store.changes(forKey: "secrets").first?.newValue == "visible")
        // A second store of the namespace, configured without the patterns, does not make them public again.
        let older = try await database.openStore(namespace: namespace, options: Self.options)
        try await older.setAndCommit("again", forKey: "api-token")
        #expect(try await older.changes(forKey: "api-token").first?.isRedacted == true)
    }

    /// A refused change is recorded beside the changes, and changes nothing.
    @Test func aRefusalIsRecorded() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace, options: Self.options)
        try await store.setAndCommit(true, forKey: "flag")
        try await store.recordRefusal(forKey: "flag", author: "viewer@example.com", reason: "a viewer may not change flags")
        let entries = try await store.changes(forKey: "flag")
        #expect(entries.map(\.kind) == [.refusal, .change])
        #expect(entries[0].author == "viewer@example.com" && entries[0].reason == "a viewer may not change flags")
        #expect(try store.value(forKey: "flag", as: Bool.self) == true)
    }

    /// Pruning keeps each key's newest entries, or those younger than an
    /// age, and neither waits for nor holds up a write while another
    /// pruner's transaction holds the old entries.
    @Test func pruningKeepsTheRetentionAndNeverBlocksWriters() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        var options = Self.options
        options.historyRetention = .latestPerKey(2)
        let store = try await database.openStore(namespace: namespace, options: options)
        for value in 1...5 {
            try store.set(value, forKey: "a")
            try await store.commitPendingWrites()
            try store.set(value * 10, forKey: "b")
            try await store.commitPendingWrites()
        }
        #expect(try await store.pruneHistory() == 6)
        #expect(try await store.changes(forKey: "a").map(\.newValue) == [5, 4])
        #expect(try await store.changes(forKey: "b").map(\.newValue) == [50, 40])

        var aged = Self.options
        aged.historyRetention = .maximumAge(.seconds(3_600))
        let ageing = try await database.openStore(namespace: namespace, options: aged)
        try database.psql("UPDATE stowage.history SET changed_at = now() - interval '2 hours' WHERE namespace = '\(namespace)'")
        // Another pruner, mid-transaction, holding the old entries of key b: a connection of the test's
        // own, not a pool, which would have to be run and stopped around it.
        let logger = Logger(label: "pruning-test")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: database.host, port: database.port, username: database.user, password: database.password,
                database: database.database, tls: .disable),
            id: 1, logger: logger)
        do {
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("DELETE FROM stowage.history WHERE namespace = \(namespace) AND key = 'b'", logger: logger)
            try await ageing.setAndCommit(6, forKey: "a")
            try await ageing.setAndCommit(60, forKey: "b")
            #expect(try await ageing.pruneHistory() == 2, "the two aged entries of a, without waiting for the other pruner")
            try await connection.query("ROLLBACK", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        #expect(try await ageing.changes(forKey: "a").map(\.newValue) == [6])
        #expect(try await ageing.changes(forKey: "b").map(\.newValue) == [60, 50, 40])
    }

    /// A running store prunes on its own, every pruning interval.
    @Test func aRunningStorePrunesOnItsOwn() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        var options = Self.options
        options.historyRetention = .latestPerKey(1)
        options.historyPruningInterval = .milliseconds(100)
        let store = try await database.openStore(namespace: namespace, options: options)
        for value in 1...3 { try await store.setAndCommit(value, forKey: "a") }
        // Asked again until the pruner has run, within a bound: no event tells of a pruning.
        let deadline = ContinuousClock.now + .seconds(30)
        var left = try await store.changes(forKey: "a").map(\.newValue)
        while left.count > 1, ContinuousClock.now < deadline { left = try await store.changes(forKey: "a").map(\.newValue) }
        #expect(left == [3])
    }

    /// The torture: four processes write, an operator edits in `psql`, and
    /// every connection the processes hold is killed again and again.
    /// Afterwards each key's history is exactly the chain of its committed
    /// changes: each entry's old value the previous entry's new one, the last
    /// the table's value at the table's revision; every acknowledged write
    /// in it; no value nobody wrote; every entry with its writer's name.
    /// Writes per process: `STOWAGE_HISTORY_TORTURE_WRITES` (100 by default; 1,000 by hand).
    @Test func historyUnderWritersOperatorsAndConnectionKillsIsExactlyTheCommittedChanges() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let writes = ProcessInfo.processInfo.environment["STOWAGE_HISTORY_TORTURE_WRITES"].flatMap { Int($0) } ?? 100
        let name = "historian-\(UUID().uuidString.prefix(8).lowercased())"
        let authors = (1...4).map { "writer\($0)" }
        // The tables, before the operator's first edit.
        _ = try await database.openStore(namespace: namespace, options: Self.options)
        let workers = try authors.map { author in
            try Worker.start(
                ["history-writes", namespace, "5", "\(writes)"], database: database,
                environment: ["STOWAGE_WORKER_APPLICATION_NAME": name, "STOWAGE_WORKER_AUTHOR": author])
        }
        var (edits, kills) = (0, 0)
        let deadline = ContinuousClock.now + .seconds(600)
        while workers.contains(where: \.isRunning), ContinuousClock.now < deadline {
            try database.psql(
                "UPDATE stowage.entries SET value = '\"psql-\(edits)\"' WHERE namespace = '\(namespace)' AND key = 'k\(edits % 5)'")
            edits += 1
            if edits % 3 == 0 {
                kills += Int(try database.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE '\(name)%'")) ?? 0
            }
        }
        let stragglers = workers.filter(\.isRunning)
        stragglers.forEach { $0.terminate() }
        try #require(stragglers.isEmpty, "workers still ran after 600 s")
        var acknowledged: [String: Set<String>] = [:]
        for worker in workers {
            let output = worker.readOutputToEnd()
            #expect(worker.waitUntilExit() == 0 && output.hasSuffix("done\n"), "\(output.suffix(200))")
            for line in output.split(separator: "\n") where line.hasPrefix("ok ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1]), default: []].insert(String(parts[2]))
            }
        }
        #expect(kills > 0 && edits > 0, "the torture tortured: \(kills) connections killed, \(edits) psql edits")

        let table = try database.psql(
            "SELECT string_agg(key || '=' || coalesce(value, '-') || '@' || revision, ' ' ORDER BY key) FROM stowage.entries WHERE namespace = '\(namespace)'")
        let rows = try database.psql(
            "SELECT string_agg(key || '|' || coalesce(old_value, '-') || '|' || coalesce(new_value, '-') || '|' || revision || '|' || coalesce(author, '-') "
                + "|| '|' || application, E'\\n' ORDER BY id) FROM stowage.history WHERE namespace = '\(namespace)' AND kind = 'change'")
        var chains: [String: [[String]]] = [:]
        for row in rows.split(separator: "\n") {
            let fields = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            chains[fields[0], default: []].append(fields)
        }
        let written = Set(authors.flatMap { author in (0..<writes).map { "\"\(author)-\($0)\"" } })
        for entry in table.split(separator: " ") {
            let key = String(entry.prefix(while: { $0 != "=" }))
            let value = String(entry.dropFirst(key.count + 1).prefix(while: { $0 != "@" }))
            let revision = String(entry.split(separator: "@").last ?? "")
            let chain = chains[key] ?? []
            try #require(!chain.isEmpty, "\(key) has no history")
            #expect(chain[0][1] == "-", "\(key)'s first entry starts from nothing")
            for (previous, next) in zip(chain, chain.dropFirst()) {
                #expect(next[1] == previous[2], "\(key): an entry from \(next[1]) follows one to \(previous[2])")
                #expect(Int64(next[3])! > Int64(previous[3])!, "\(key): revisions rise")
            }
            #expect(chain.last?[2] == value && chain.last?[3] == revision, "\(key): the last entry is the table's \(value) at \(revision)")
            let recorded = Set(chain.map { $0[2] })
            let lost = (acknowledged[key] ?? []).map { "\"\($0)\"" }.filter { !recorded.contains($0) }
            #expect(lost.isEmpty, "\(key): acknowledged writes missing from the history: \(lost)")
            for fields in chain {
                let byOperator = fields[2].hasPrefix("\"psql-")
                #expect(byOperator || written.contains(fields[2]), "\(key): \(fields[2]) was never written")
                #expect(byOperator ? fields[4] == "-" && fields[5] == "psql" : fields[2].hasPrefix("\"\(fields[4])-"), "\(fields)")
            }
        }
        let acknowledgedCount = acknowledged.values.map(\.count).reduce(0, +)
        #expect(acknowledgedCount > 0)
        let entries = chains.values.map(\.count).reduce(0, +)
        print(
            "history torture: \(acknowledgedCount) acknowledged writes, \(edits) psql edits, \(kills) connections killed; \(entries) entries, each key's a chain"
        )
    }
}
