import Foundation
import PostgresNIO
import ServiceLifecycle
import ServiceLifecycleTestKit
import Stowage
import StowageLocking
@testable import StowagePostgres
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A caller's own commit or compare-and-swap, sent on the connection the
/// store holds for its steps: the same bound and the same words as the
/// worker's, the same order, no stall when blocking callers hold every
/// thread, and the connection given back when the store stops.
@Suite(.runsStores)
struct PostgresStoreStepTests {
    static let options = PostgresStore.Options(operationTimeout: .seconds(2), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(250))

    /// The same without the held connection's keep-alive question, which on
    /// a frozen backend would take that connection from the step a test
    /// sends there.
    static let optionsWithoutKeepAlive = {
        var options = Self.options
        options.heartbeatInterval = .seconds(600)
        return options
    }()

    /// The server process serving `connection`.
    private func backendProcess(of connection: PostgresConnection) async throws -> pid_t {
        var backend: Int32?
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: Logger(label: "test")).decode(Int32.self) { backend = pid }
        return pid_t(try #require(backend))
    }

    /// Makes the database refuse every write of `key` for which `condition`
    /// (an SQL expression) holds, with the error of PL/pgSQL's `conditionName`.
    private func refuseWrites(of key: String, where condition: String = "true", with conditionName: String, on database: TestDatabase) throws {
        try database.psql(
            """
            CREATE FUNCTION stowage.refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.key = '\(key)' AND (\(condition)) THEN
                    RAISE EXCEPTION 'this test refuses writes of \(key)' USING ERRCODE = '\(conditionName)';
                END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER refuse_writes BEFORE INSERT OR UPDATE ON stowage.entries FOR EACH ROW EXECUTE FUNCTION stowage.refuse_writes()
            """)
    }

    /// A store on a server of its own (a frozen backend may hold locks
    /// others need), running and loaded, holding its connection; the
    /// backend process of that connection, and those of all the store's
    /// connections (their `application_name` is `name`).
    private func openStoreHoldingItsConnection(
        on database: TestDatabase, options: PostgresStore.Options = Self.options, name: String = "held-\(UUID().uuidString.prefix(8).lowercased())"
    ) async throws -> (store: PostgresStore, heldBackend: pid_t, allBackends: () throws -> [pid_t]) {
        var configuration = database.configuration
        configuration.options.additionalStartupParameters = [("application_name", name)]
        let store = try PostgresStore(configuration: configuration, namespace: TestDatabase.uniqueNamespace(), options: options)
        try RunningStores.run(store)
        // The first store on a new server makes the tables: more than the 2 s operation timeout under a sanitizer.
        try await store.ready(timeout: .seconds(30))
        try await store.backing.connectionFirstHeld.value(within: .seconds(30)) { _ in
            StorageError(code: .timedOut, reason: "the store held no connection for its steps")
        }
        let connection = try #require(store.backing.state.withLock { $0.heldConnection })
        let allBackends = {
            try database.psql("SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)'").split(separator: "\n").compactMap { pid_t($0) }
        }
        return (store, try await backendProcess(of: connection), allBackends)
    }

    /// A `setAndCommit` whose own statement goes unanswered (the store's
    /// backends frozen, as behind a network that drops packets) fails by
    /// its operation timeout, not after a second one spent waiting for the
    /// worker, saying the write stays queued; the worker then commits it on
    /// a new connection.
    @Test func aCommitWhoseStatementGoesUnansweredEndsByItsTimeoutAndStaysQueued() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        // A longer timeout than the others', so that a loaded machine's late timers weigh less against it.
        let options = PostgresStore.Options(operationTimeout: .seconds(5), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(250))
        let (store, heldBackend, allBackends) = try await openStoreHoldingItsConnection(on: database, options: options)
        try await store.setAndCommit("before", forKey: "motto")

        let backends = try allBackends()
        #expect(backends.contains(heldBackend))
        // No new connection either, so the worker can not commit it behind the caller's back.
        let role = database.configuration.username
        _ = try database.psql("ALTER ROLE \(role) CONNECTION LIMIT 0")
        for backend in backends { #expect(kill(backend, SIGSTOP) == 0) }
        let started = ContinuousClock.now
        let error = await #expect(throws: StorageError.self) { try await store.setAndCommit("after", forKey: "motto") }
        let waited = ContinuousClock.now - started
        _ = try database.psql("ALTER ROLE \(role) CONNECTION LIMIT -1")
        var failure: (any Error)?
        do { try await commitOnceBack(store) } catch { failure = error }
        for backend in backends { kill(backend, SIGCONT) }
        if let failure { throw failure }

        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("they stay queued") == true, "\(error?.message ?? "")")
        // The bound is the operation timeout; a caller that waited for it again, for the worker, would wait twice as long.
        #expect(waited >= options.operationTimeout && waited < options.operationTimeout * 1.75, "waited \(waited)")
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == "after")
    }

    /// A `modifyAndCommit` whose own statement was sent and went unanswered
    /// says the outcome is unknown, not that nothing was written; the store
    /// then reads the key again and agrees with the table.
    @Test func aSwapWhoseStatementGoesUnansweredSaysTheOutcomeIsUnknown() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let (store, backend, _) = try await openStoreHoldingItsConnection(on: database)
        let counter = store.reference(forKey: "counter", as: Int.self)
        try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 }

        #expect(kill(backend, SIGSTOP) == 0)
        let error = await #expect(throws: StorageError.self) { try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
        kill(backend, SIGCONT)
        #expect(error?.code == .timedOut)
        #expect(error?.key == "counter")
        #expect(error?.message.contains("unknown") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("nothing was written") == false, "\(error?.message ?? "")")

        // Whatever the frozen statement does once resumed, the store goes on: the next increment lands.
        let before = try await database.tableEntries(namespace: store.namespace)["counter"]
        try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 }
        let after = try await database.tableEntries(namespace: store.namespace)["counter"]
        #expect(after != before, "\(String(describing: before)) → \(String(describing: after))")
    }

    /// A held connection gone silent while idle (its backend frozen, as
    /// behind a middlebox that dropped the idle flow) is found by the
    /// keep-alive, closed by its question's deadline and replaced, so the
    /// next commit takes no longer than on a healthy connection. Before, the
    /// connection stayed held until a step waited out its own deadline on it.
    @Test func aHeldConnectionGoneSilentWhileIdleIsReplacedBeforeTheNextCommit() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        // The commit's bound is half the operation timeout, which a loaded machine's new connection (SCRAM under a sanitizer) stays within.
        let options = PostgresStore.Options(
            operationTimeout: .seconds(4), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(250),
            heartbeatInterval: .milliseconds(200))
        let (store, heldBackend, _) = try await openStoreHoldingItsConnection(on: database, options: options)
        try await store.setAndCommit("before", forKey: "motto")
        let silent = try #require(store.heldConnection)

        #expect(kill(heldBackend, SIGSTOP) == 0)
        defer { kill(heldBackend, SIGCONT) }
        // Idle 0.2 s, then a question unanswered for 4 s: closed within some 4.2 s.
        #expect(try await closes(silent), "the silent held connection was not closed within 20 s")

        let started = ContinuousClock.now
        try await store.setAndCommit("after", forKey: "motto")
        let waited = ContinuousClock.now - started
        #expect(waited < options.operationTimeout / 2, "waited \(waited)")
        #expect(store.heldConnection !== silent)
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == "after")
    }

    /// Commits and swaps from many tasks at once, some sent by their callers
    /// and some by the worker, with writes behind them, keep every
    /// increment and end with the table and the store agreeing. The
    /// blocking `modify` calls hold the cooperative pool's threads while they
    /// wait: a caller's step that needed one of them to finish would stall
    /// them all until their timeout, which fails the test.
    @Test func callersAndTheWorkerTakeStepsInTurnWithoutLosingAnIncrement() async throws {
        let database = try TestDatabase.shared()
        let store = try await database.openStore(namespace: TestDatabase.uniqueNamespace(), options: Self.options)
        let counter = store.reference(forKey: "counter", as: Int.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<25 {
                        try await counter.modifyAndCommit { $0 = ($0 ?? 0) + 1 }
                        try store.set(round, forKey: "behind-\(task)")
                        try await store.setAndCommit(round, forKey: "committed-\(task)")
                        // A blocking swap, which holds a thread of the pool while it waits.
                        try counter.modify { $0 = ($0 ?? 0) + 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.commitPendingWrites()
        let table = try await database.tableEntries(namespace: store.namespace)
        #expect(table["counter"] == .signedInteger(400))
        #expect(counter.value == 400)
        for task in 0..<8 {
            #expect(table["behind-\(task)"] == .signedInteger(24))
            #expect(table["committed-\(task)"] == .signedInteger(24))
        }
    }

    /// Cancelling `run()` while a caller's commit waits for its answer
    /// (its statement sent, the backend frozen): `run()` waits for the step,
    /// which ends at once as the stopped pool closes its connection, and
    /// reports the write as possibly committed, as it tells the caller
    /// waiting for it. It was: once the backend runs again it reads the
    /// statement and commits it. Before, the report said the write was not
    /// saved (the mark of a statement in flight was taken off when the step
    /// ended, before the store stopped), and the caller that nothing was written.
    @Test func aStopDuringACallersCommitSaysTheWriteMayHaveBeenCommitted() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let reports = RecordedReports.errors
        // A deadline no loaded machine reaches: the stopped pool, not a deadline, ends the step, and the caller waits for the stop.
        var options = Self.optionsWithoutKeepAlive
        options.operationTimeout = .seconds(60)
        let store = try PostgresStore(configuration: database.configuration, namespace: TestDatabase.uniqueNamespace(), options: options)
        let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
        try await store.ready(timeout: .seconds(30))
        let heldBackend = try await backendProcess(of: store.connectionHeldForSteps())

        #expect(kill(heldBackend, SIGSTOP) == 0)
        defer { kill(heldBackend, SIGCONT) }
        // Queued and started on the stores' thread, where the worker runs too: it can not take the write before the caller does.
        let stepped = FirstOutcome<FirstOutcome<Bool>?>()
        let waiter = Task(executorPreference: StoreExecutor.shared) { () async -> StorageError? in
            do {
                try store.backing.enqueueWrite(key: "motto", value: .string("after"), text: "\"after\"")
            } catch {
                stepped.resolve(.success(nil))
                return nil
            }
            let (through, deadline) = store.backing.commitTarget()
            let step = store.backing.startCommitOnCallersThread(through: through, by: deadline)
            // On the held connection, whose backend is frozen: not on one the pool would open.
            stepped.resolve(.success(store.backing.state.withLock { $0.heldConnectionInUse } ? step : nil))
            // And a caller waiting for the commit, as `setAndCommit` does: on this thread still, so before run() can end.
            do {
                try await store.commitPendingWrites()
                return nil
            } catch let error as StorageError {
                return error
            } catch {
                return nil
            }
        }
        let started = try #require(try await stepped.value(), "the caller could not take the step on the held connection")

        run.cancel()
        try await run.value
        // run() returned only once the step had ended; the write stayed queued, and was reported.
        #expect(store.backing.state.withLock { !$0.stepInProgress && $0.phase == .stopped && $0.queue.isEmpty })
        #expect(try await started.value() == false)
        let report = await reports.first { $0.storeName == store.description && $0.key == "motto" }
        #expect(report?.message.contains("may have been committed") == true, "\(report?.message ?? "no report")")
        #expect(report?.message.contains("not saved") == false, "\(report?.message ?? "no report")")
        // The waiting caller is told the same, not that nothing was written.
        let waited = await waiter.value
        #expect(waited?.message.contains("may have been committed") == true, "\(waited?.message ?? "no error")")
        #expect(waited?.message.contains("nothing was written") == false, "\(waited?.message ?? "no error")")
        await #expect(throws: StorageError.self) { try await store.setAndCommit("later", forKey: "motto") }

        // What the report says may have happened does: the backend, running again, commits the statement it had received.
        let observer = try await database.openStore(namespace: store.namespace, options: Self.options)
        _ = try await firstElement(of: observer.statusUpdates()) { $0.receivesChanges }
        let observed = observer.changes
        #expect(kill(heldBackend, SIGCONT) == 0)
        _ = try await firstElement(of: observed) { _ in (try? observer.value(forKey: "motto", as: String.self)) == "after" }
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == "after")
    }

    /// A write whose first statement went unanswered, and whose next try
    /// the database refused, may still have been saved by the first: the
    /// report says so. Here it was: a trigger refuses the key's writes from
    /// every backend but the one the first try went to, frozen meanwhile,
    /// which commits it once it runs again. Before, the report said the
    /// value was not saved.
    @Test func aRefusalAfterAnUnansweredTrySaysTheFirstMayHaveSavedIt() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let reports = RecordedReports.errors
        let (store, heldBackend, _) = try await openStoreHoldingItsConnection(on: database, options: Self.optionsWithoutKeepAlive)
        try await store.setAndCommit("before", forKey: "motto")
        // Only the first try, on the held connection, may write it.
        try refuseWrites(of: "motto", where: "pg_backend_pid() <> \(heldBackend)", with: "check_violation", on: database)

        #expect(kill(heldBackend, SIGSTOP) == 0)
        defer { kill(heldBackend, SIGCONT) }
        let changes = store.changes
        // The caller's try goes to the frozen backend and is left unanswered; the worker's, on a new connection, is refused.
        await #expect(throws: StorageError.self) { try await store.setAndCommit("after", forKey: "motto") }
        let report = await reports.first { $0.storeName == store.description && $0.key == "motto" && $0.message.contains("could not save") }
        #expect(report?.message.contains("may have saved it") == true, "\(report?.message ?? "no report")")
        #expect(report?.message.contains("not saved") == false, "\(report?.message ?? "no report")")

        #expect(kill(heldBackend, SIGCONT) == 0)
        _ = try await firstElement(of: changes) { _ in (try? store.value(forKey: "motto", as: String.self)) == "after" }
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == "after")
    }

    /// A write the server answered with a rollback (a serialization failure
    /// here) committed nothing: a stop while it waits to be tried again says
    /// it was not saved, not that a statement for it went unanswered.
    @Test func aStopAfterTheServerRolledAWriteBackSaysItWasNotSaved() async throws {
        let database = try TestDatabase.startPrivate()
        defer { try? database.control("stop") }
        let (reports, events) = (RecordedReports.errors, RecordedReports.events)
        // The try after the failure waits half a minute: the stop comes while no statement is out.
        var options = Self.optionsWithoutKeepAlive
        options.initialRetryDelay = .seconds(30)
        options.maximumRetryDelay = .seconds(30)
        let store = try PostgresStore(configuration: database.configuration, namespace: TestDatabase.uniqueNamespace(), options: options)
        let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
        try await store.ready(timeout: .seconds(30))
        try refuseWrites(of: "motto", with: "serialization_failure", on: database)

        try store.set("after", forKey: "motto")
        let failure = await events.first { $0.storeName == store.description && $0.message.contains("could not commit") }
        #expect(failure?.message.contains("SQLSTATE 40001") == true, "\(failure?.message ?? "no event")")
        run.cancel()
        try await run.value

        let report = await reports.first { $0.storeName == store.description && $0.key == "motto" }
        #expect(report?.message.contains("not saved by this store") == true, "\(report?.message ?? "no report")")
        #expect(report?.message.contains("may have been committed") == false, "\(report?.message ?? "no report")")
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == nil)
    }

    /// A graceful shutdown gives the held connection back to the pool:
    /// `run()` returns at once, though the operation timeout, its bound for
    /// tasks that do not end, is ten minutes.
    @Test(.timeLimit(.minutes(1)))
    func aGracefulShutdownGivesTheHeldConnectionBack() async throws {
        let database = try TestDatabase.shared()
        let store = try PostgresStore(
            configuration: database.configuration, namespace: TestDatabase.uniqueNamespace(), options: .init(operationTimeout: .seconds(600)))
        try await testGracefulShutdown { trigger in
            let run = Task(executorPreference: StoreExecutor.shared) { try await store.run() }
            try await store.ready(timeout: .seconds(30))
            try await store.backing.connectionFirstHeld.value(within: .seconds(30)) { _ in
                StorageError(code: .timedOut, reason: "the store held no connection for its steps")
            }
            try await store.setAndCommit("sent by its caller", forKey: "motto")
            trigger.triggerGracefulShutdown()
            try await run.value
        }
        #expect(store.backing.state.withLock { $0.heldConnection == nil })
        #expect(try await database.tableEntries(namespace: store.namespace)["motto"] == "sent by its caller")
    }
}
