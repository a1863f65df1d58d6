import Foundation
import StowageFlags
import StowageInMemory
import StowageJSONFile
import StowagePostgres
import Testing

/// Servers of a fleet, as worker processes on one database: every change,
/// by a server or by an operator in `psql`, reaches every server's
/// observers, and none is left with a stale value after its listening
/// connection drops or the database restarts.
@Suite(.runsStores)
struct PostgresStoreFleetTests {
    static let options = PostgresStore.Options(operationTimeout: .seconds(5), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(500))
    static let live = PostgresStore.Status(connection: .connected, receivesChanges: true)

    /// A value a store writes, and one an operator updates, inserts or
    /// deletes in `psql`, reach the observers of every other server.
    @Test func aChangeByAnyoneReachesEveryServersObservers() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let servers = try await FleetServer.live(["a", "b", "c"], namespace: namespace, database: database)
        let store = try await database.openStore(namespace: namespace, options: Self.options)
        let changes = store.changes

        try await store.setAndCommit("from a store", forKey: "motto")
        for server in servers { try await server.waitForChange(of: "motto", to: "from a store") }

        try database.psql("UPDATE stowage.entries SET value = '\"from psql\"' WHERE namespace = '\(namespace)' AND key = 'motto'")
        for server in servers { try await server.waitForChange(of: "motto", to: "from psql") }
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == "from psql" }

        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('\(namespace)', 'limit', '25')")
        for server in servers { try await server.waitForChange(of: "limit", to: 25) }

        // A row moved to another key, and one moved to another namespace: the old key is gone everywhere.
        try database.psql("UPDATE stowage.entries SET key = 'renamed' WHERE namespace = '\(namespace)' AND key = 'limit'")
        for server in servers {
            try await server.waitForChange(of: "renamed", to: 25)
            try await server.waitForChange(of: "limit", to: nil)
        }
        try await store.setAndCommit("moving", forKey: "mover")
        try database.psql("UPDATE stowage.entries SET namespace = '\(namespace)-elsewhere' WHERE namespace = '\(namespace)' AND key = 'mover'")
        for server in servers { try await server.waitForChange(of: "mover", to: nil) }

        try database.psql("DELETE FROM stowage.entries WHERE namespace = '\(namespace)' AND key = 'motto'")
        for server in servers { try await server.waitForChange(of: "motto", to: nil) }
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == nil }
        #expect(try store.value(forKey: "renamed", as: Int.self) == 25)
        #expect(try store.value(forKey: "mover", as: String.self) == nil)
        for server in servers { server.stop() }
    }

    /// With the listening connections killed and unable to come back, the
    /// servers miss the changes made meanwhile (a write, a removal, an
    /// operator's update and delete, a new key), and say so; once they can
    /// connect again they listen, read everything, announce exactly the
    /// keys that changed, and hold what the table holds.
    @Test func changesMadeWhileNobodyListensReachEveryServerOnceItListensAgain() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let writer = try await database.openStore(namespace: namespace, options: Self.options)
        for index in 0..<10 { try writer.set("v\(index)", forKey: "key\(index)") }
        try await writer.commitPendingWrites()
        let servers = try await FleetServer.live(["a", "b"], namespace: namespace, database: database)
        let writerStatus = writer.statusUpdates()

        // Listening connections can not come back while the role may not log in; the pools keep theirs.
        try database.psql("ALTER ROLE stowage NOLOGIN")
        let lostAt = servers.map(\.lineCount)
        let terminated = try database.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE '%listener'")
        #expect(terminated == "3", "one listener for the test process, one for each server")
        for (server, start) in zip(servers, lostAt) {
            try await server.line(after: start) { $0.hasPrefix("status ") && $0.hasSuffix("not receiving changes") }
        }
        _ = try await firstElement(of: writerStatus) { !$0.receivesChanges }

        try await writer.setAndCommit("changed", forKey: "key1")
        try writer.removeValue(forKey: "key2")
        try await writer.commitPendingWrites()
        try database.psql("DELETE FROM stowage.entries WHERE namespace = '\(namespace)' AND key = 'key3'")
        try database.psql("UPDATE stowage.entries SET value = '\"by the operator\"' WHERE namespace = '\(namespace)' AND key = 'key4'")
        try await writer.setAndCommit("new", forKey: "key10")
        for server in servers {
            let held = try await server.entries()
            #expect(held["key1"] == "v1" && held["key3"] == "v3" && held["key10"] == nil, "\(server.name) missed the changes: nothing listens")
        }
        let age = try #require(writer.cacheAge)
        #expect(age > .zero)
        #expect(writer.status.receivesChanges == false)

        let backAt = servers.map(\.lineCount)
        try database.psql("ALTER ROLE stowage LOGIN")
        let table = try await database.tableEntries(namespace: namespace)
        #expect(table.count == 9, "10 keys, 2 removed, 1 new")
        for (server, start) in zip(servers, backAt) {
            try await server.waitForStatus(Self.live, after: start)
            #expect(try await server.entries() == table, "\(server.name) holds what the table holds")
            // Announcements come from a queue of their own, maybe after the status line: wait for each.
            for key in ["key1", "key2", "key3", "key4", "key10"] { try await server.waitForChange(of: key, to: table[key], after: start) }
            #expect(try server.changedKeys(after: start) == ["key1", "key2", "key3", "key4", "key10"], "\(server.name) announced only what changed")
        }
        _ = try await firstElement(of: writerStatus) { $0 == Self.live }
        #expect(writer.cacheAge == .zero)
        for server in servers { server.stop() }
    }

    /// A restarted database, and one killed and started again: the servers
    /// say they are unreachable while it is down, serve the values they
    /// had, come back on their own, read everything again, and hear changes.
    @Test func serversFollowTheDatabaseThroughARestartAndACrash() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        try await database.openStore(namespace: namespace).setAndCommit("before", forKey: "motto")
        let servers = try await FleetServer.live(["a", "b"], namespace: namespace, database: database)

        var start = servers.map(\.lineCount)
        try database.control("restart")
        for (server, from) in zip(servers, start) {
            let lost = try await server.line(after: from) { $0.hasPrefix("status ") && $0.hasSuffix("not receiving changes") }.index
            try await server.waitForStatus(Self.live, after: lost)
        }
        try database.psql("UPDATE stowage.entries SET value = '\"after the restart\"' WHERE namespace = '\(namespace)' AND key = 'motto'")
        for server in servers { try await server.waitForChange(of: "motto", to: "after the restart") }

        start = servers.map(\.lineCount)
        try database.control("kill")
        for (server, from) in zip(servers, start) {
            try await server.waitForStatus(.init(connection: .unreachable, receivesChanges: false), after: from)
            #expect(try await server.entries()["motto"] == "after the restart", "\(server.name) serves what it had while the database is down")
        }
        start = servers.map(\.lineCount)
        try database.control("resume")
        for (server, from) in zip(servers, start) { try await server.waitForStatus(Self.live, after: from) }
        try database.psql("UPDATE stowage.entries SET value = '\"after the crash\"' WHERE namespace = '\(namespace)' AND key = 'motto'")
        for server in servers { try await server.waitForChange(of: "motto", to: "after the crash") }
        for server in servers { server.stop() }
    }

    /// With the database's opt-in (`stowage.notices_carry_values`, here set
    /// for the writer's sessions), a write's notice carries its value, and a
    /// listening store takes it without reading the table; without it, the
    /// store reads the row a notice names.
    @Test func noticesCarryValuesOnlyWhereTheDatabaseOptsIn() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let listener = try await server.openStore(namespace: namespace, options: Self.options)
        _ = try await firstElement(of: listener.statusUpdates()) { $0 == Self.live }
        var optedIn = server.configuration
        optedIn.options.additionalStartupParameters = [("stowage.notices_carry_values", "on")]
        let writer = try PostgresStore(configuration: optedIn, namespace: namespace, options: Self.options)
        try RunningStores.run(writer)
        try await writer.ready(timeout: .seconds(30))
        let reads = { try server.psql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE '%key = ANY%'") }

        let before = try reads()
        let changes = listener.changes
        for index in 0..<20 { try await writer.setAndCommit("carried \(index)", forKey: "key\(index % 5)") }
        _ = try await firstElement(of: changes) { _ in (try? listener.value(forKey: "key4", as: String.self)) == "carried 19" }
        #expect(try listener.value(forKey: "key0", as: String.self) == "carried 15")
        #expect(try reads() == before, "the listener read rows the notices carried")

        let plainWriter = try await server.openStore(namespace: namespace, options: Self.options)
        try await plainWriter.setAndCommit("read from the table", forKey: "key0")
        _ = try await firstElement(of: changes) { _ in (try? listener.value(forKey: "key0", as: String.self)) == "read from the table" }
        #expect(try Int(reads()) ?? 0 > Int(before) ?? 0, "without the opt-in, the notice names the row and the listener reads it")
    }

    /// Listening connections killed again and again while a store keeps
    /// writing and removing: afterwards every server holds what the table
    /// holds, and the removed keys are gone everywhere.
    @Test func listenersKilledWhileWritesContinueLeaveNoStaleValue() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let servers = try await FleetServer.live(["a", "b"], namespace: namespace, database: database)
        let writer = try await database.openStore(namespace: namespace, options: Self.options)
        let listeners = servers.map { "'\($0.applicationName) listener'" }.joined(separator: ", ")
        var removed: Set<String> = []
        for round in 0..<5 {
            let start = servers.map(\.lineCount)
            let terminated = try database.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name IN (\(listeners))")
            #expect(terminated == "2")
            // Writes go on while the servers listen again and read everything.
            for index in 0..<40 {
                let key = "key\(index)"
                if (index + round) % 5 == 0 {
                    try writer.removeValue(forKey: key)
                    removed.insert(key)
                } else {
                    try writer.set("round \(round)", forKey: key)
                    removed.remove(key)
                }
                if index % 10 == 9 { try await writer.commitPendingWrites() }
            }
            for (server, from) in zip(servers, start) {
                let lost = try await server.line(after: from) { $0.hasPrefix("status ") && $0.hasSuffix("not receiving changes") }.index
                try await server.waitForStatus(Self.live, after: lost)
            }
        }
        try await writer.setAndCommit("done", forKey: "marker")
        let table = try await database.tableEntries(namespace: namespace)
        #expect(!removed.isEmpty && removed.allSatisfy { table[$0] == nil })
        for server in servers {
            try await server.waitForChange(of: "marker", to: "done")
            #expect(try await server.entries() == table, "\(server.name) holds what the table holds")
        }
        for server in servers { server.stop() }
    }

    /// A listening connection that goes silent without closing (its server
    /// process stopped, as behind a network that drops packets) is found by
    /// the heartbeat and replaced, and changes reach the server again.
    @Test func aSilentListeningConnectionIsFoundAndReplaced() async throws {
        // A server of its own: a stopped backend may hold a lock every commit that notifies needs.
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let server = try await FleetServer.live(["a"], namespace: namespace, database: database)[0]
        let pid = try database.psql("SELECT pid FROM pg_stat_activity WHERE application_name = '\(server.applicationName) listener'")
        let backend = try #require(pid_t(pid), "one listening connection: \(pid)")
        let start = server.lineCount
        #expect(kill(backend, SIGSTOP) == 0)
        // The worker asks every second and waits 5 s for an answer.
        let lost = try? await server.line(after: start, within: .seconds(30)) { $0.hasPrefix("status ") && $0.hasSuffix("not receiving changes") }.index
        kill(backend, SIGCONT)
        let found = try #require(lost, "the silent connection was not found")
        try await server.waitForStatus(Self.live, after: found)
        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('\(namespace)', 'motto', '\"heard again\"')")
        try await server.waitForChange(of: "motto", to: "heard again")
        server.stop()
    }

    /// A thousand changes at once, writes and removals over 300 keys: every
    /// server ends with the table's values.
    @Test func aThousandChangesInABurstLeaveEveryServerWithTheTablesValues() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let servers = try await FleetServer.live(["a", "b", "c"], namespace: namespace, database: database)
        let writer = try await database.openStore(namespace: namespace, options: Self.options)
        for change in 0..<1_000 {
            if change % 7 == 3 {
                try writer.removeValue(forKey: "key\(change % 300)")
            } else {
                try writer.set(change, forKey: "key\(change % 300)")
            }
            // Commit every so often, so the burst is many transactions, not one.
            if change % 50 == 49 { try await writer.commitPendingWrites() }
        }
        try await writer.setAndCommit("done", forKey: "marker")
        let table = try await database.tableEntries(namespace: namespace)
        for server in servers {
            try await server.waitForChange(of: "marker", to: "done")
            #expect(try await server.entries() == table, "\(server.name) holds what the table holds")
        }
        for server in servers { server.stop() }
    }

    /// A key too long for a notification to name (its JSON escapes take
    /// more than 8,000 bytes) is still seen: the notice names its namespace,
    /// and every server reads the namespace again.
    @Test func aChangeTooLongToNameInANotificationIsStillSeen() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let server = try await FleetServer.live(["a"], namespace: namespace, database: database)[0]
        let writer = try await database.openStore(namespace: namespace, options: Self.options)
        let key = String(repeating: "\u{1}", count: 2_000)
        try await writer.setAndCommit("long", forKey: key)
        try await server.waitForChange(of: key, to: "long")
        server.stop()
    }

    /// Stores of one process on one database share one listening connection.
    @Test func storesOfAProcessShareOneListeningConnection() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let stores = [
            try await database.openStore(namespace: "one", options: Self.options),
            try await database.openStore(namespace: "two", options: Self.options),
            try await database.openStore(namespace: "three", options: Self.options),
        ]
        for store in stores { _ = try await firstElement(of: store.statusUpdates()) { $0 == Self.live } }
        #expect(try database.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'stowage listener'") == "1")
        try await stores[0].setAndCommit(1, forKey: "shared")
        let observed = stores[1].changes
        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('two', 'shared', '2')")
        _ = try await firstElement(of: observed) { _ in (try? stores[1].value(forKey: "shared", as: Int.self)) == 2 }
        #expect(try stores[0].value(forKey: "shared", as: Int.self) == 1, "namespaces stay apart")
        #expect(try stores[2].value(forKey: "shared", as: Int.self) == nil)
    }

    struct FleetFlags: FlagContainer {
        @Flag("Shows the new checkout") var newCheckout = false
        @Flag("Requests a client may make each second") var rateLimit = 100
    }

    /// Flags whose remote source is a `PostgresStore`: a flag flipped in the
    /// database reaches every pole at once, and a local override stays local.
    @Test func aFlagFlippedInTheDatabaseReachesEveryPoleWhileOverridesStayLocal() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let first = try FlagPole(FleetFlags(), overrides: InMemoryStore(), remote: try await database.openStore(namespace: namespace, options: Self.options))
        let second = try FlagPole(FleetFlags(), overrides: InMemoryStore(), remote: try await database.openStore(namespace: namespace, options: Self.options))
        let server = try await FleetServer.live(["a"], namespace: namespace, database: database)[0]
        let firstChanges = first.changes(\.newCheckout)
        let secondChanges = second.changes(\.newCheckout)

        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('\(namespace)', 'new-checkout', 'true')")
        #expect(try await firstElement(of: firstChanges) { $0 } == true)
        #expect(try await firstElement(of: secondChanges) { $0 } == true)
        try await server.waitForChange(of: "new-checkout", to: true)

        try first.override(\.rateLimit, with: 5)
        let secondLimits = second.changes(\.rateLimit)
        try database.psql("INSERT INTO stowage.entries (namespace, key, value) VALUES ('\(namespace)', 'rate-limit', '50')")
        #expect(try await firstElement(of: secondLimits) { $0 == 50 } == 50)
        #expect(first.rateLimit == 5, "the local override wins over the fleet's value")
        #expect(first.state(forKey: "rate-limit")?.origin == .override)
        // The push reaches each store on its own: the first may not have it yet when the second has.
        let firstLimits = first.changes(\.rateLimit)
        try first.removeOverride(\.rateLimit)
        #expect(try await firstElement(of: firstLimits) { $0 == 50 } == 50)
        server.stop()
    }

    static let tenantRule = #"""
        {"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"in": [{"var": "tenant"}, ["acme"]]}, "on", {"fractional": [["on", 10], ["off", 90]]}]}}}}
        """#

    /// Flag definitions travel through the fleet's table like values: a rule
    /// applied by one server, then changed by an operator in `psql`, is
    /// evaluated by every server once the change is pushed, and a broken edit
    /// is reported while every server keeps the last good rule.
    @Test func aRuleChangedAnywhereIsEvaluatedByEveryServer() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let writer = try FlagPole(FleetFlags(), overrides: InMemoryStore(), remote: try await database.openStore(namespace: namespace, options: Self.options))
        let reader = try FlagPole(FleetFlags(), overrides: InMemoryStore(), remote: try await database.openStore(namespace: namespace, options: Self.options))
        let (acme, globex) = (EvaluationContext(attributes: ["tenant": "acme"]), EvaluationContext(attributes: ["tenant": "globex"]))
        let readerChanges = reader.changes
        let writerChanges = writer.changes
        let reports = RecordedReports.errors

        let applied = ContinuousClock.now
        let result = try await Task.detached { try writer.update(with: Data(Self.tenantRule.utf8)) }.value
        #expect(result.rejected.isEmpty && result.changedKeys == ["new-checkout"])
        _ = try await firstElement(of: readerChanges) { $0.key == "new-checkout" && $0.hasTargeting }
        print("The rule reached the second server \(ContinuousClock.now - applied) after the first began to apply it.")
        #expect(reader.value(\.newCheckout, for: acme) && !reader.value(\.newCheckout, for: globex))
        // The split gives every server the same answer for the same user.
        for user in 0..<200 {
            let context = EvaluationContext(targetingKey: "user-\(user)")
            #expect(reader.value(\.newCheckout, for: context) == writer.value(\.newCheckout, for: context))
        }

        // An operator moves the rule from one tenant to another in psql.
        try database.psql(
            "UPDATE stowage.entries SET value = replace(value, '[\"acme\"]', '[\"globex\"]') WHERE namespace = '\(namespace)' AND key = '$flag-configurations'")
        for changes in [readerChanges, writerChanges] {
            _ = try await firstElement(of: changes) { $0.key == "new-checkout" && $0.configuration?.targeting?.description.contains("globex") == true }
        }
        for pole in [reader, writer] {
            #expect(!pole.value(\.newCheckout, for: acme) && pole.value(\.newCheckout, for: globex))
        }

        // A broken edit (an operator flagd does not have) is reported; every server keeps the rule it had.
        try database.psql(
            "UPDATE stowage.entries SET value = replace(value, '\"in\"', '\"inside\"') WHERE namespace = '\(namespace)' AND key = '$flag-configurations'")
        let broken = await reports.first(matching: { $0.key == "new-checkout" && $0.message.contains(#"unknown operator "inside""#) })
        #expect(broken != nil)
        for pole in [reader, writer] {
            #expect(pole.value(\.newCheckout, for: globex))
            #expect(try pole.details(\.newCheckout, for: globex).reason == .targetingMatch)
        }
    }
}
