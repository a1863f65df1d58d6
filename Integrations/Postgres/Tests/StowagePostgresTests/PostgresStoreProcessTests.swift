import Foundation
import StowagePostgres
import Testing

/// Several processes on one database, as servers of a fleet are.
@Suite(.runsStores)
struct PostgresStoreProcessTests {
    /// `modify` is a compare-and-swap on the row's revision: 4 processes
    /// making 500 increments each, all at once, lose none.
    @Test func fourProcessesIncrementingOneKeyEndAtExactlyTwoThousand() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let workers = try (0..<4).map { _ in try Worker.start(["increment", namespace, "counter", "500"], database: database) }
        #expect(workers.map { $0.waitUntilExit() } == [0, 0, 0, 0])

        let store = try await database.openStore(namespace: namespace)
        #expect(try store.value(forKey: "counter", as: Int.self) == 2_000)
    }

    /// A fleet's deploy starts every server at once on tables none has made:
    /// twelve processes, ten times, each on a fresh schema, all load at
    /// their first try (before the setup lock was the session's, 6 to 9 of
    /// 12 failed with SQLSTATE 23505 and loaded only on a later try).
    /// Ten rounds by default; CI, which also runs the same race in one process ten times, runs
    /// `STOWAGE_PROCESS_STARTUP_ROUNDS` of them (a round starts 12 sanitized processes).
    @Test func twelveProcessesStartingTogetherOnFreshTablesAllOpenTenTimesInARow() throws {
        let database = try TestDatabase.shared()
        let rounds = ProcessInfo.processInfo.environment["STOWAGE_PROCESS_STARTUP_ROUNDS"].flatMap { Int($0) } ?? 10
        for round in 1...max(1, rounds) {
            let schema = "processes_\(round)_\(UUID().uuidString.prefix(8).lowercased())"
            let workers = try (0..<12).map { _ in
                try Worker.start(["open", "n", "-"], database: database, environment: ["STOWAGE_WORKER_SCHEMA": schema])
            }
            let outputs = workers.map { worker in
                let output = worker.readOutputToEnd()
                return (worker.waitUntilExit(), output)
            }
            #expect(outputs.filter { $0.0 == 0 && $0.1.contains("opened") }.count == 12, "round \(round): \(outputs)")
        }
    }

    /// Eight processes increment one key while every connection they hold
    /// is killed again and again: every increment a process was told of is
    /// in the final count, and no other, unless its error said the outcome
    /// was unknown (a connection killed after the commit, before the answer).
    @Test func eightProcessesIncrementingWhileTheirConnectionsAreKilledLoseNothingAcknowledged() throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let name = "incrementer-\(UUID().uuidString.prefix(8).lowercased())"
        let workers = try (0..<8).map { _ in
            try Worker.start(["count-increments", namespace, "counter", "150"], database: database, environment: ["STOWAGE_WORKER_APPLICATION_NAME": name])
        }
        var kills = 0
        // Each of a worker's 150 increments ends within its 5 s operation timeout, so 12.5 minutes bound it.
        let deadline = ContinuousClock.now + .seconds(750)
        while workers.contains(where: \.isRunning), ContinuousClock.now < deadline {
            kills += Int(try database.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE '\(name)%'")) ?? 0
        }
        let stragglers = workers.filter(\.isRunning)
        stragglers.forEach { $0.terminate() }
        try #require(stragglers.isEmpty, "workers \(stragglers.map(\.pid)) still ran after 750 s, when each increment ends within 5 s")
        var (acknowledged, unknown) = (0, 0)
        for worker in workers {
            let line = worker.readOutputToEnd()
            #expect(worker.waitUntilExit() == 0, "\(line)")
            let numbers = line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try #require(numbers.count == 3, "\(line)")
            acknowledged += numbers[0]
            unknown += numbers[1]
        }
        let final = Int(try database.psql("SELECT value FROM stowage.entries WHERE namespace = '\(namespace)' AND key = 'counter'")) ?? -1
        #expect(kills > 0, "no connection was killed: the test tested nothing")
        #expect(acknowledged > 0)
        #expect(
            final >= acknowledged && final <= acknowledged + unknown,
            "final \(final), acknowledged \(acknowledged), unknown \(unknown), \(kills) connections killed")
        print("8 processes under \(kills) connection kills: final \(final), acknowledged \(acknowledged), outcome unknown \(unknown)")
    }

    /// A value one process committed is what a process started later
    /// loads, after the server itself was restarted in between.
    @Test func aCommittedValueOutlivesAServerRestart() throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        #expect(try Worker.run(["write", namespace, "motto", "kept across restarts"], database: server).status == 0)

        try server.control("restart")
        let read = try Worker.run(["read", namespace, "motto"], database: server)
        #expect(read.status == 0)
        #expect(read.output == "kept across restarts")
    }
}
