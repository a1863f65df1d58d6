import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import StowageLocking
@testable import StowagePostgres
import Testing

/// The store as a server runs it: a `Service` whose work happens inside
/// `run()`, which a `ServiceGroup` starts and shuts down gracefully.
///
/// Runs start on the stores' own thread (a task executor preference, which
/// a group's child tasks inherit), not the shared pool: other suites block
/// its threads in synchronous calls, and on two cores a run could wait for
/// one longer than a test waits for it.
struct PostgresStoreServiceTests {
    /// A service of the application's, beside the store in the group: it
    /// writes, then asks the group to shut down, as SIGTERM would.
    private struct Application: Service {
        let store: PostgresStore
        let group: @Sendable () async -> Void

        func run() async throws {
            try await store.ready(timeout: .seconds(30))
            for number in 0..<300 { try store.set(number, forKey: "key-\(number)") }
            await group()
        }
    }

    /// Writes still queued when a graceful shutdown begins are committed before `run()` returns.
    @Test func aGracefulShutdownCommitsWhatIsQueuedBeforeRunReturns() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try PostgresStore(configuration: database.configuration, namespace: namespace)
        let trigger = Locked<ServiceGroup?>(nil)
        let application = Application(store: store) { await trigger.withLock { $0 }?.triggerGracefulShutdown() }
        // The store first: a group shuts its services down in reverse order, so the application stops writing before the store stops.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: store), .init(service: application, successTerminationBehavior: .gracefullyShutdownGroup)],
                logger: Logger(label: "test")))
        trigger.withLock { $0 = group }
        try await Task(executorPreference: StoreExecutor.shared) { try await group.run() }.value

        let table = try await database.tableEntries(namespace: namespace)
        #expect(table.count == 300)
        #expect(table["key-299"] == .signedInteger(299))
        #expect(store.queuedWriteCount == 0)
        // After run() returns, writes are refused at once, and reads keep what the store held.
        let refused = #expect(throws: StorageError.self) { try store.set(1, forKey: "late") }
        #expect(refused?.message.contains("has stopped") == true, "\(refused?.message ?? "")")
        #expect(try store.value(forKey: "key-7", as: Int.self) == 7)
    }

    /// When the database is gone, a graceful shutdown gives up after the
    /// operation timeout, reports every key it could not write, fails the
    /// callers still waiting, and stops showing the unsaved values.
    @Test(.timeLimit(.minutes(2)))
    func aGracefulShutdownWithoutTheDatabaseReportsWhatItCouldNotWrite() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let namespace = TestDatabase.uniqueNamespace()
        let reports = RecordedReports.errors
        let store = try PostgresStore(
            configuration: server.configuration, namespace: namespace,
            options: .init(operationTimeout: .seconds(2), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(200)))
        try await testGracefulShutdown { trigger in
            let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
            try await store.ready(timeout: .seconds(30))
            try store.set("kept", forKey: "saved")
            try await store.commitPendingWrites()
            let held = try await store.connectionHeldForSteps()

            try server.control("kill")
            // A statement sent before the client saw the connection close might have been committed, as far as it knows: not this case.
            #expect(try await closes(held), "the held connection did not close within 20 s of the server's end")
            try store.set("lost", forKey: "unsaved-1")
            try store.set("lost", forKey: "unsaved-2")
            let waiting = Task { try await store.commitPendingWrites() }
            trigger.triggerGracefulShutdown()
            try await run.value

            let report = await reports.first(matching: { $0.storeName == store.description && $0.message.contains("not saved") })
            #expect(report?.message.contains("unsaved-1, unsaved-2") == true, "\(report?.message ?? "no report")")
            #expect(report?.message.contains("2 queued writes") == true, "\(report?.message ?? "no report")")
            await #expect(throws: StorageError.self) { try await waiting.value }
            #expect(try store.value(forKey: "unsaved-1", as: String.self) == nil, "an unsaved value is no longer shown")
            #expect(try store.value(forKey: "saved", as: String.self) == "kept")
        }
        try server.control("resume")
        let table = try await server.tableEntries(namespace: namespace)
        #expect(table == ["saved": .string("kept")])
    }

    /// Cancelling `run()` stops the store at once, without waiting for the
    /// operation timeout (ten minutes here), and still reports the queue.
    @Test(.timeLimit(.minutes(1)))
    func cancellingRunStopsAtOnceAndReportsTheQueue() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let reports = RecordedReports.errors
        let store = try PostgresStore(
            configuration: server.configuration, namespace: TestDatabase.uniqueNamespace(), options: .init(operationTimeout: .seconds(600)))
        let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
        try await store.ready(timeout: .seconds(30))
        try server.control("kill")
        try store.set(1, forKey: "queued")
        run.cancel()
        try await run.value
        let report = await reports.first(matching: { $0.storeName == store.description && $0.message.contains("not saved") })
        #expect(report?.key == "queued", "\(report?.message ?? "no report")")
        #expect(throws: StorageError.self) { try store.set(2, forKey: "after") }
    }

    /// Before `run()`: writes queue and show, waits say why they wait, and
    /// once the store runs the queued writes are committed.
    @Test func beforeRunWritesQueueAndWaitsSayThatRunHasNotStarted() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try PostgresStore(configuration: database.configuration, namespace: namespace)
        try store.set("early", forKey: "motto")
        #expect(try store.value(forKey: "motto", as: String.self) == "early")
        #expect(store.queuedWriteCount == 1)
        let notReady = await #expect(throws: StorageError.self) { try await store.ready(timeout: .milliseconds(100)) }
        #expect(notReady?.code == .timedOut)
        #expect(notReady?.message.contains("run() has not started") == true, "\(notReady?.message ?? "")")

        try await testGracefulShutdown { trigger in
            let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
            try await store.commitPendingWrites()
            #expect(try await database.tableEntries(namespace: namespace) == ["motto": .string("early")])
            let twice = await #expect(throws: StorageError.self) { try await store.run() }
            #expect(twice?.message.contains("runs once") == true, "\(twice?.message ?? "")")
            trigger.triggerGracefulShutdown()
            try await run.value
        }
    }

    /// A store that lost its database said `.unreachable` until some
    /// exchange succeeded, which an idle store never made: it now tries a
    /// read with growing pauses, and says `.connected` once the server is back.
    @Test(.timeLimit(.minutes(2)))
    func anIdleStoreSaysConnectedOnceItsDatabaseIsBack() async throws {
        let server = try TestDatabase.startPrivate()
        defer { try? server.control("stop") }
        let store = try PostgresStore(
            configuration: server.configuration, namespace: TestDatabase.uniqueNamespace(),
            options: .init(
                operationTimeout: .seconds(2), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(200),
                listensForChanges: false, resynchronizationInterval: nil))
        try await testGracefulShutdown { trigger in
            let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
            try await store.ready(timeout: .seconds(30))
            let statuses = store.statusUpdates()
            try server.control("kill")
            await #expect(throws: StorageError.self) {
                try await store.reference(forKey: "counter", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 }
            }
            _ = try await firstElement(of: statuses) { $0.connection == .unreachable }
            try server.control("resume")
            _ = try await firstElement(of: statuses, within: .seconds(60)) { $0.connection == .connected }
            #expect(store.connectionState == .connected)
            trigger.triggerGracefulShutdown()
            try await run.value
        }
    }
}
