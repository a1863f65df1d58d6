#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StowagePostgres
import Testing

/// A server that stops, and comes back: what writes, reads, `modify` and
/// readiness do meanwhile, on a server of the test's own.
@Suite(.runsStores)
struct PostgresStoreOutageTests {
    /// Quick retries and a short operation timeout, so the test's waits are short.
    static let options = PostgresStore.Options(operationTimeout: .seconds(2), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(250))

    /// Writes while the server is down stay queued and visible; `flush`
    /// fails with `.timedOut` saying so; a `modify` fails without being
    /// applied; once the server is back the queued writes are committed,
    /// and a new process reads them.
    @Test func writesWhileTheServerIsDownAreQueuedAndCommittedWhenItIsBack() async throws {
        let events = RecordedReports.events
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await server.openStore(namespace: namespace, options: Self.options)
        try await store.setAndCommit("before", forKey: "motto")

        try server.control("kill")
        try store.set("during", forKey: "motto")
        try store.set(7, forKey: "count")
        #expect(try store.value(forKey: "motto", as: String.self) == "during", "reads serve the queued value")
        let flushError = #expect(throws: StorageError.self) { try store.flush() }
        #expect(flushError?.code == .timedOut)
        #expect(flushError?.message.contains("stay queued") == true, "\(flushError?.message ?? "")")
        #expect(store.queuedWriteCount == 2)
        #expect(store.connectionState == .unreachable)
        let modifyError = #expect(throws: StorageError.self) { try store.reference(forKey: "modified", as: Int.self).modify { $0 = 1 } }
        #expect(modifyError?.code == .timedOut)
        #expect(modifyError?.key == "modified")
        // The operator hears of the outage once, as an event naming the store.
        let lost = try #require(await events.first { $0.kind == .disconnected && $0.storeName == store.description })
        #expect(lost.severity == .warning)
        #expect(lost.error?.code == .storeFailure)
        #expect(events.all.filter { $0.kind == .disconnected && $0.storeName == store.description }.count == 1, "once, though every try failed")

        try server.control("resume")
        try await commitOnceBack(store)
        #expect(store.queuedWriteCount == 0)
        #expect(store.connectionState == .connected)
        // And of its end: the queued writes went through, and a full read made the cache current.
        let retried = try #require(await events.first { $0.kind == .writeRetriedAndSucceeded && $0.storeName == store.description })
        #expect(Int(retried.details["attempts"] ?? "") ?? 0 >= 2, "\(retried)")
        let caughtUp = try #require(await events.first { $0.kind == .resynchronized && $0.storeName == store.description })
        #expect(Double(caughtUp.details["outage_seconds"] ?? "") ?? 0 > 0, "\(caughtUp)")
        #expect(events.all.filter { $0.kind == .disconnected && $0.storeName == store.description }.count == 1, "one outage, told once")
        #expect(try Worker.run(["read", namespace, "motto"], database: server).output == "during")
        let other = try await server.openStore(namespace: namespace)
        #expect(try other.value(forKey: "count", as: Int.self) == 7)
        #expect(try other.value(forKey: "modified", as: Int.self) == nil, "a modify that failed was never applied")
    }

    /// The queue of writes grew without bound while the database was away.
    /// Past `maximumQueuedWrites` a write is refused at once, naming its
    /// key, and is neither queued nor shown to reads; the queued writes are
    /// kept and committed once the server is back, and writes are taken again.
    @Test func writesBeyondTheQueuesBoundAreRefusedAndTheQueuedOnesKept() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        var options = Self.options
        options.maximumQueuedWrites = 3
        let store = try await server.openStore(namespace: namespace, options: options)

        try server.control("kill")
        try store.set(1, forKey: "first")
        try store.set(2, forKey: "second")
        try store.set(3, forKey: "first")
        let error = #expect(throws: StorageError.self) { try store.set(4, forKey: "fourth") }
        #expect(error?.key == "fourth")
        #expect(error?.message.contains("maximumQueuedWrites") == true, "\(error?.message ?? "")")
        #expect(store.queuedWriteCount == 3)
        #expect(try store.value(forKey: "fourth", as: Int.self) == nil, "a refused write is not shown")
        #expect(try store.value(forKey: "first", as: Int.self) == 3)

        try server.control("resume")
        try await commitOnceBack(store)
        #expect(store.queuedWriteCount == 0)
        try await store.setAndCommit(5, forKey: "fifth")
        let other = try await server.openStore(namespace: namespace)
        #expect(try other.value(forKey: "first", as: Int.self) == 3)
        #expect(try other.value(forKey: "second", as: Int.self) == 2)
        #expect(try other.value(forKey: "fourth", as: Int.self) == nil)
        #expect(try other.value(forKey: "fifth", as: Int.self) == 5)
    }

    /// A compare-and-swap made while the server refuses every connection
    /// failed at the timeout saying "whether it was applied is unknown",
    /// though it never had a connection to send its statement on. It says
    /// nothing was written, and the key is indeed absent once the server is back.
    ///
    /// The test waits until the store has seen its held connection close:
    /// a statement sent on a connection the client still believes open may
    /// have reached the server, and then "unknown" is the truth.
    @Test func aModifyThatNeverGotAConnectionSaysNothingWasWritten() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await server.openStore(namespace: namespace, options: Self.options)
        let held = try await store.connectionHeldForSteps()

        try server.control("kill")
        #expect(try await closes(held), "the held connection did not close within 20 s of the server's end")
        let error = await #expect(throws: StorageError.self) {
            try await store.reference(forKey: "counter", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 }
        }
        #expect(error?.code == .timedOut)
        #expect(error?.key == "counter")
        #expect(error?.message.contains("nothing was written") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("unknown") == false, "\(error?.message ?? "")")

        try server.control("resume")
        let other = try await server.openStore(namespace: namespace)
        #expect(try other.value(forKey: "counter", as: Int.self) == nil)
    }

    /// A store opened while the server is down reads every key as absent,
    /// says it is not ready and why, and loads once the server is back.
    @Test func aStoreOpenedWhileTheServerIsDownLoadsWhenItIsBack() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        try await server.openStore(namespace: namespace).setAndCommit("stored", forKey: "motto")

        try server.control("kill")
        let store = try PostgresStore(configuration: server.configuration, namespace: namespace, options: Self.options)
        try RunningStores.run(store)
        let error = await #expect(throws: StorageError.self) { try await store.ready(timeout: .milliseconds(500)) }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("is not ready") == true, "\(error?.message ?? "")")
        #expect(!store.isReady)
        #expect(try store.value(forKey: "motto", as: String.self) == nil)

        try server.control("resume")
        try await store.ready(timeout: .seconds(30))
        #expect(try store.value(forKey: "motto", as: String.self) == "stored")
    }

    /// A role that may no longer connect (its `CONNECT` privilege revoked,
    /// its sessions ended) is an outage for its store, not a refusal of its
    /// writes: they stay queued and shown, and are committed once the role
    /// may connect again. The pool keeps trying to connect, so the commit
    /// meets a deadline rather than the server's refusal (SQLSTATE 42501);
    /// were a refusal to connect to reach the store, it would count as an
    /// outage too, since the statement itself was never judged.
    @Test func writesQueuedWhileTheRoleMayNotConnectAreCommittedOnceItMay() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        _ = try await database.openStore(namespace: "owner", options: Self.options)
        let (store, _, role) = try await database.openStoreAsRestrictedRole(schema: "stowage", options: Self.options)
        try await store.setAndCommit("before", forKey: "motto")

        let name = database.configuration.database ?? "stowage"
        try database.psql(
            "REVOKE CONNECT ON DATABASE \(name) FROM PUBLIC; SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        try store.set("after", forKey: "motto")
        let error = await #expect(throws: StorageError.self) { try await store.commitPendingWrites() }
        #expect(error?.code == .timedOut, "\(error?.message ?? "")")
        #expect(error?.message.contains("stay queued") == true, "\(error?.message ?? "")")
        #expect(store.queuedWriteCount == 1)
        #expect(try store.value(forKey: "motto", as: String.self) == "after")

        try database.psql("GRANT CONNECT ON DATABASE \(name) TO PUBLIC")
        try await commitOnceBack(store)
        #expect(try await database.tableEntries(namespace: "one")["motto"] == "after")
    }

    /// A connection that goes silent mid-statement (its server process
    /// frozen, as behind a network that drops packets) holds nothing up for
    /// long: at the operation timeout the store closes it, and commits its
    /// writes on a new one.
    @Test func aWriteOnAConnectionGoneSilentIsCommittedOnANewOne() async throws {
        // A server of its own: a stopped backend may hold locks other tests' commits need.
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let name = "silent-\(UUID().uuidString.prefix(8).lowercased())"
        var configuration = database.configuration
        configuration.options.additionalStartupParameters = [("application_name", name)]
        let store = try PostgresStore(configuration: configuration, namespace: namespace, options: Self.options)
        try RunningStores.run(store)
        // The first store on a new server makes the tables: more than the 2 s operation timeout under a sanitizer.
        try await store.ready(timeout: .seconds(30))
        try await store.setAndCommit("before", forKey: "motto")

        let pids = try database.psql("SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)'").split(separator: "\n").compactMap { pid_t($0) }
        #expect(!pids.isEmpty)
        for pid in pids { #expect(kill(pid, SIGSTOP) == 0) }
        try store.set("after", forKey: "motto")
        var failure: (any Error)?
        do { try await commitOnceBack(store) } catch { failure = error }
        for pid in pids { kill(pid, SIGCONT) }
        if let failure { throw failure }
        #expect(try await database.tableEntries(namespace: namespace)["motto"] == "after")
    }
}
