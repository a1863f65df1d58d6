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
        for (process, _) in workers { process.waitUntilExit() }
        #expect(workers.map { $0.0.terminationStatus } == [0, 0, 0, 0])

        let store = try await database.openStore(namespace: namespace)
        #expect(try store.value(forKey: "counter", as: Int.self) == 2_000)
    }

    /// A fleet's deploy starts every server at once on tables none has made:
    /// twelve processes, ten times, each on a fresh schema, all load at
    /// their first try (before the setup lock was the session's, 6 to 9 of
    /// 12 failed with SQLSTATE 23505 and loaded only on a later try).
    @Test func twelveProcessesStartingTogetherOnFreshTablesAllOpenTenTimesInARow() throws {
        let database = try TestDatabase.shared()
        for round in 1...10 {
            let schema = "processes_\(round)_\(UUID().uuidString.prefix(8).lowercased())"
            let workers = try (0..<12).map { _ in
                try Worker.start(["open", "n", "-"], database: database, environment: ["STOWAGE_WORKER_SCHEMA": schema])
            }
            let outputs = workers.map { process, output in
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: data, as: UTF8.self))
            }
            #expect(outputs.filter { $0.0 == 0 && $0.1.contains("opened") }.count == 12, "round \(round): \(outputs)")
        }
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
