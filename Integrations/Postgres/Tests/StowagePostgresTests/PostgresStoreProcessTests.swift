import Foundation
import StowagePostgres
import Testing

/// Several processes on one database, as servers of a fleet are.
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
