import Foundation
import Logging
import NIOCore
import PostgresNIO
import Stowage
import StowageJSON
import StowageLocking

/// The statements one store runs, on its own connection pool, for its namespace.
///
/// Every value goes in as a bound parameter. Keys go in in Unicode's
/// composed form (NFC): Stowage's keys are Swift strings, which compare by
/// canonical equivalence, while PostgreSQL compares bytes, so `"é"` spelled
/// as one scalar or two must name one row.
struct PostgresDatabase: Sendable {
    let client: PostgresClient
    let schema: PostgresSchema
    let namespace: String
    let logger: Logger
    /// Why the pool's last connection attempt failed, for the errors of requests that waited on it.
    let attempts: ConnectionAttempts
    /// Whether the schema has the procedures that write and confirm the
    /// commit in one round trip (component `writes`), found by
    /// ``prepareTables(on:)``; until then, and in tables a DBA made without
    /// them, a lone statement is confirmed by a second question.
    let hasWriteProcedures = Locked(false)
    /// Whether it also has the procedure for one key (version 3 of
    /// `writes`), which a lone write calls instead of the batch's.
    let hasOneKeyWriteProcedure = Locked(false)

    typealias Row = PostgresStoreState.CommittedEntry
    /// Rows read from the table by key, and the rows whose value is not
    /// JSON text (reported by the caller, never applied).
    typealias LoadedRows = (rows: [String: Row], unreadable: [StorageError])

    /// Runs `body` on a connection of the store's pool, or throws
    /// `DatabaseFailure.NoAnswer` after `timeout` without waiting for it.
    ///
    /// A statement sent on a connection that went silent (a network that
    /// drops packets, a frozen server) never ends on its own, and a task
    /// waiting for it can not be cancelled: so at the deadline the
    /// connection is closed, which ends the wait and makes the pool open a
    /// new one. The server may still finish a statement it was running, so
    /// the caller treats the outcome as unknown: a write is tried again (with
    /// the same value), a compare-and-swap says so and reads the keys again.
    /// The server also ends, by itself, a statement that outlasts the
    /// timeout: the pool's connections set `statement_timeout` to it.
    ///
    /// A failure before the pool handed over a connection (none could be
    /// made, or none came in time) is thrown as `DatabaseFailure.NotSent`:
    /// `body` never ran, so nothing was written. `gate` is the request's,
    /// when its caller's deadline may close it first.
    ///
    /// `body` runs on `executor`: the store's own for its worker, or
    /// ``ImmediateExecutor`` for a caller's own step. The deadline is an
    /// entry of ``Deadlines``, not a task or a timer of its own.
    func withConnection<Value: Sendable>(
        within timeout: Duration, gate: StatementGate = StatementGate(), on executor: any TaskExecutor = StoreExecutor.shared,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let outcome = FirstOutcome<Value>()
        let client = client
        let work = Task(executorPreference: executor) {
            do {
                let value = try await client.withConnection { connection in
                    // Decided under the lock the deadline takes too: either `body` runs, or the deadline said it never would.
                    guard gate.lease(connection) else { throw CancellationError() }
                    return try await body(connection)
                }
                outcome.resolve(.success(value))
            } catch {
                outcome.resolve(.failure(gate.wasLeased ? error : DatabaseFailure.NotSent(cause: error)))
            }
        }
        let deadline = Deadlines.shared.schedule(in: timeout) {
            let leased = gate.closeAtDeadline()
            let noAnswer = DatabaseFailure.NoAnswer(timeout: timeout)
            guard outcome.resolve(.failure(leased == nil ? DatabaseFailure.NotSent(cause: noAnswer) : noAnswer)) else { return }
            work.cancel()
            if let leased { let _: EventLoopFuture<Void> = leased.close() }
        }
        defer { deadline.cancel() }
        // A store that stops at once does not wait for the statement either; the pool it stops ends it.
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            let leased = gate.closeAtDeadline()
            if outcome.resolve(.failure(leased == nil ? DatabaseFailure.NotSent(cause: CancellationError()) : CancellationError())) { work.cancel() }
        }
    }

    /// Creates the schema, the tables and the notification triggers when
    /// missing, under an advisory lock, so processes starting together do
    /// not race.
    ///
    /// The lock is the session's, taken before the transaction begins, not
    /// the transaction's: PostgreSQL takes in other sessions' catalog changes
    /// when a transaction begins, so a transaction that waited for a
    /// transaction-wide lock still saw no tables where the lock's holder had
    /// just made them, and made them again (SQLSTATE 23505 on
    /// `schema_versions`, seen on PostgreSQL 15).
    /// - Returns: `nil`, or why the tables do not notify changes: they were
    ///   made without the triggers, and this role may not add them. The
    ///   store then opens them without pushed changes.
    /// - Throws: `StorageError` when the tables are of a newer version than this release knows.
    func prepareTables(on connection: PostgresConnection) async throws -> StorageError? {
        // A role that may only use tables a DBA made must still open the store: CREATE SCHEMA IF NOT EXISTS
        // checks the right to create a schema before whether it exists, so look first.
        let installed = try await installedVersions(on: connection)
        if let entries = installed.entries, entries > PostgresSchema.currentVersion { throw newerTables(entries) }
        if installed.isCurrent {
            noteCallableWriteProcedures(installed)
            return nil
        }
        do {
            var lock = PostgresBindings()
            lock.append(schema.setupLockID)
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock($1)", binds: lock), logger: logger)
            let callable: InstalledVersions
            do {
                callable = try await connection.withTransaction(logger: logger) { connection in
                    // Again, under the lock: another process may have done it meanwhile.
                    let locked = try await installedVersions(on: connection)
                    if let entries = locked.entries, entries > PostgresSchema.currentVersion { throw newerTables(entries) }
                    var statements: [String] = []
                    if locked.entries == nil { statements += [schema.createSchema, schema.createVersions] + schema.createVersion1 }
                    if locked.notifications ?? 0 < PostgresSchema.notificationsVersion { statements += schema.createNotifications }
                    if locked.history ?? 0 < PostgresSchema.historyVersion { statements += schema.createHistory }
                    let addsWriteProcedures = locked.writes ?? 0 < PostgresSchema.writesVersion
                    if addsWriteProcedures { statements += schema.createWrites }
                    if !statements.isEmpty {
                        try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.oneStatement(statements)), logger: logger)
                    }
                    // Procedures this role just made are its own.
                    var callable = locked
                    if addsWriteProcedures { (callable.mayCallWriteProcedures, callable.mayCallOneKeyWrite) = (true, true) }
                    return callable
                }
            } catch {
                await releaseSetupLock(lock, on: connection)
                throw error
            }
            await releaseSetupLock(lock, on: connection)
            noteCallableWriteProcedures(callable)
            return nil
        } catch  where installed.entries != nil && !DatabaseFailure.isTransient(error) && !(DatabaseFailure.unwrapped(error) is StorageError) {
            // Triggers of an earlier version notify all the same, without values: nothing is lost but the opt-in.
            // Tables a DBA made without the history open without it: changes are not recorded, which the history's readers are told.
            // Without the write procedures, a lone statement's commit is confirmed by a second question.
            noteCallableWriteProcedures(installed)
            if installed.notifications != nil { return nil }
            return StorageError(
                code: .storeFailure,
                reason: "the tables in schema \"\(schema.name)\" have no notification triggers, and this role may not add them "
                    + "(\(explanation(of: error))). The store opens them without: changes made elsewhere arrive with its full read every "
                    + "resynchronizationInterval, or reload(). The tables' owner adds the triggers by opening a store once.",
                underlyingError: DatabaseFailure.reportable(error))
        }
    }

    /// Releases the session's setup lock. A connection that broke took the
    /// lock with it; one that can not release it is closed, so it never goes
    /// back to the pool holding a lock every other store's setup waits for.
    private func releaseSetupLock(_ lock: PostgresBindings, on connection: PostgresConnection) async {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock($1)", binds: lock), logger: logger)
        } catch {
            try? await connection.close()
        }
    }

    private func noteCallableWriteProcedures(_ installed: InstalledVersions) {
        hasWriteProcedures.withLock { $0 = installed.mayCallWriteProcedures }
        hasOneKeyWriteProcedure.withLock { $0 = installed.mayCallWriteProcedures && installed.mayCallOneKeyWrite }
    }

    private func newerTables(_ version: Int32) -> StorageError {
        StorageError(
            code: .migrationFailed,
            reason: "the tables in schema \"\(schema.name)\" are at version \(version), newer than the \(PostgresSchema.currentVersion) "
                + "this release of StowagePostgres knows; nothing was changed. Update StowagePostgres.")
    }

    /// The versions recorded in `schema_versions` of each component
    /// (`nil` where missing), and which write procedures this role may call.
    private struct InstalledVersions {
        var entries: Int32?
        var notifications: Int32?
        var history: Int32?
        var writes: Int32?
        /// `write_committed` and `swap_committed`, which every release since version 1 of `writes` calls.
        var mayCallWriteProcedures = false
        /// `write_one_committed` (version 3).
        var mayCallOneKeyWrite = false

        /// Whether every component is at the version this release makes.
        var isCurrent: Bool {
            entries != nil && notifications ?? 0 >= PostgresSchema.notificationsVersion && history ?? 0 >= PostgresSchema.historyVersion
                && writes ?? 0 >= PostgresSchema.writesVersion
        }
    }

    /// Two statements, since a store opening tables that are there runs only these before its first read.
    private func installedVersions(on connection: PostgresConnection) async throws -> InstalledVersions {
        var binds = PostgresBindings()
        binds.append("\(schema.name).schema_versions")
        binds.append(schema.name)
        var versions = InstalledVersions()
        var exists = false
        let found = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT to_regclass($1) IS NOT NULL, callable.* FROM (\(schema.countCallableWriteProcedures(schemaParameter: 2))) AS callable",
                binds: binds),
            logger: logger)
        for try await (table, callable, callableOneKey) in found.decode((Bool, Int64, Int64).self) {
            exists = table
            versions.mayCallWriteProcedures = callable == 2
            versions.mayCallOneKeyWrite = callableOneKey == 1
        }
        guard exists else { return versions }
        for try await (component, version) in try await connection.query(PostgresQuery(unsafeSQL: schema.selectVersions), logger: logger).decode(
            (String, Int32).self)
        {
            switch component {
            case "entries": versions.entries = version
            case "notifications": versions.notifications = version
            case "history": versions.history = version
            case "writes": versions.writes = version
            default: break
            }
        }
        return versions
    }

    /// Every row of the namespace, removals included, and the rows whose
    /// value is not JSON text (reported by the caller, never applied).
    func loadNamespace(on connection: PostgresConnection) async throws -> LoadedRows {
        var binds = PostgresBindings()
        binds.append(namespace)
        return try await decodeRows(connection.query(PostgresQuery(unsafeSQL: schema.selectNamespace, binds: binds), logger: logger))
    }

    /// The rows of `keys`; a key without a row is absent from the result.
    func load(keys: some Collection<String>, on connection: PostgresConnection) async throws -> LoadedRows {
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append(keys.map(Self.databaseKey))
        return try await decodeRows(connection.query(PostgresQuery(unsafeSQL: schema.selectKeys, binds: binds), logger: logger))
    }

    /// Writes every key's value (`nil` text: removed) in one statement.
    /// - Returns: each key's new revision.
    /// Writes of different authors go in one statement each, since a
    /// statement sets one author for its transaction.
    func write(_ unsorted: [(key: String, text: String?, author: String?)], on connection: PostgresConnection) async throws -> [String: Int64] {
        var byAuthor: [String: [(key: String, text: String?)]] = [:]
        for item in unsorted { byAuthor[item.author ?? "", default: []].append((item.key, item.text)) }
        var revisions: [String: Int64] = [:]
        for (author, items) in byAuthor.sorted(by: { $0.key < $1.key }) {
            revisions.merge(try await write(items, author: author, on: connection)) { $1 }
        }
        return revisions
    }

    private func write(_ unsorted: [(key: String, text: String?)], author: String, on connection: PostgresConnection) async throws -> [String: Int64] {
        // In key order, so two processes' batches lock rows in one order and never deadlock each other.
        let batch = unsorted.sorted { Self.databaseKey($0.key) < Self.databaseKey($1.key) }
        var binds = PostgresBindings()
        binds.append(namespace)
        if batch.count == 1, hasOneKeyWriteProcedure.withLock({ $0 }) {
            var call = binds
            call.append(Self.databaseKey(batch[0].key))
            call.append(batch[0].text)
            call.append(author)
            do {
                var revisions: [String: Int64] = [:]
                let rows = try await connection.query(PostgresQuery(unsafeSQL: schema.callWriteOneCommitted, binds: call), logger: logger)
                // No revision when a trigger of the user's skipped the row, as the batch's procedure allows.
                for try await revision in rows.decode(Int64?.self) { revisions[Self.databaseKey(batch[0].key)] = revision }
                return revisions
            } catch  where Self.isMissingProcedure(error) {
                // The batch's procedure, or statements, write it.
                hasOneKeyWriteProcedure.withLock { $0 = false }
            }
        }
        if hasWriteProcedures.withLock({ $0 }) {
            var call = binds
            call.append(batch.map { Self.databaseKey($0.key) })
            call.append(batch.map { $0.text ?? "" })
            call.append(batch.map { $0.text == nil })
            call.append(author)
            do {
                var revisions: [String: Int64] = [:]
                let rows = try await connection.query(PostgresQuery(unsafeSQL: schema.callWriteCommitted, binds: call), logger: logger)
                for try await (keys, written) in rows.decode(([String]?, [Int64]?).self) {
                    for (key, revision) in zip(keys ?? [], written ?? []) { revisions[key] = revision }
                }
                return revisions
            } catch  where Self.isMissingProcedure(error) {
                hasWriteProcedures.withLock { $0 = false }
            }
        }
        let sql: String
        if batch.count == 1 {
            binds.append(Self.databaseKey(batch[0].key))
            binds.append(batch[0].text)
            sql = schema.upsertOne
        } else {
            binds.append(batch.map { Self.databaseKey($0.key) })
            binds.append(batch.map { $0.text ?? "" })
            binds.append(batch.map { $0.text == nil })
            sql = schema.upsertBatch
        }
        binds.append(author)
        var revisions: [String: Int64] = [:]
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        for try await (key, revision) in rows.decode((String, Int64).self) {
            revisions[key] = revision
        }
        try await confirmCommitted(on: connection)
        return revisions
    }

    /// Whether a write procedure's call failed because it is gone or this
    /// role may no longer call it (SQLSTATE 42883, 42501): dropped or
    /// revoked since the store opened the tables. Nothing was written then,
    /// and the store does without it from then on, this write first: a lone
    /// write without the one-key procedure goes to the batch's, and without
    /// the batch's procedures every write is a statement.
    private static func isMissingProcedure(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return ["42883", "42501"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// Returns once the statement just run on `connection` is committed;
    /// needed only where the write procedures are not installed.
    ///
    /// postgres-nio ends a statement's rows at its `CommandComplete`, but
    /// the server commits a statement outside a transaction block only at
    /// the `Sync` that follows it: a connection killed between the two
    /// rolls the statement back after the caller was told it succeeded (2
    /// increments of 1,047 were lost so, by 8 processes under 1,945
    /// connection kills). The server answers a question asked next on the
    /// same connection only after that commit, so its answer confirms it; an
    /// error instead leaves the outcome unknown, as any lost answer does.
    private func confirmCommitted(on connection: PostgresConnection) async throws {
        for try await _ in try await connection.query("SELECT 1", logger: logger) {}
    }

    /// What a compare-and-swap did.
    enum ReplaceOutcome {
        /// Every key was written: each key's new revision.
        case written([String: Int64])
        /// A row had moved on, and nothing was written. `current` holds the
        /// rows as they are when the answer brought them (the one-key
        /// procedure's does), `nil` when they must be read.
        case movedOn(current: LoadedRows?)
    }

    /// The compare-and-swap: writes every key only if its row is still at
    /// the revision given (0: no row), all or nothing. One key is one
    /// statement; several run in one transaction.
    func replace(
        _ items: [(key: String, text: String?, expectedRevision: Int64)], author: String?, on connection: PostgresConnection
    ) async throws -> ReplaceOutcome {
        if items.count == 1 {
            return try await conditionalWrite(items[0], author: author, on: connection, inTransaction: false)
        }
        do {
            return try await connection.withTransaction(logger: logger) { connection in
                var revisions: [String: Int64] = [:]
                // In key order, so two transactions lock rows in one order.
                for item in items.sorted(by: { Self.databaseKey($0.key) < Self.databaseKey($1.key) }) {
                    guard case .written(let written) = try await conditionalWrite(item, author: author, on: connection, inTransaction: true) else {
                        throw Conflict()
                    }
                    revisions.merge(written) { $1 }
                }
                return .written(revisions)
            }
        } catch let error as PostgresTransactionError where error.closureError is Conflict {
            return .movedOn(current: nil)
        }
    }

    /// Thrown inside the transaction to roll it back when one key had moved on.
    private struct Conflict: Error {}

    private func conditionalWrite(
        _ item: (key: String, text: String?, expectedRevision: Int64), author: String?, on connection: PostgresConnection, inTransaction: Bool
    ) async throws -> ReplaceOutcome {
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append(Self.databaseKey(item.key))
        binds.append(item.text)
        let sql: String
        if !inTransaction, hasWriteProcedures.withLock({ $0 }) {
            var call = binds
            call.append(item.expectedRevision)
            call.append(author ?? "")
            do {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: schema.callSwapCommitted, binds: call), logger: logger)
                var outcome = ReplaceOutcome.movedOn(current: nil)
                for try await (written, currentText, currentRevision) in rows.decode((Int64?, String?, Int64?).self) {
                    if let written {
                        outcome = .written([item.key: written])
                    } else {
                        var current: LoadedRows = ([:], [])
                        if let currentRevision { decodeRow(key: Self.databaseKey(item.key), text: currentText, revision: currentRevision, into: &current) }
                        outcome = .movedOn(current: current)
                    }
                }
                return outcome
            } catch  where Self.isMissingProcedure(error) {
                hasWriteProcedures.withLock { $0 = false }
            }
        }
        if item.expectedRevision == 0 {
            sql = schema.insertIfAbsent
        } else {
            binds.append(item.expectedRevision)
            sql = schema.updateIfRevision
        }
        binds.append(author ?? "")
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        let rows = try await connection.query(query, logger: logger)
        var revision: Int64?
        for try await found in rows.decode(Int64.self) { revision = found }
        // Inside a transaction its COMMIT confirms it; alone, the statement's own commit must be awaited.
        if revision != nil, !inTransaction { try await confirmCommitted(on: connection) }
        return revision.map { .written([item.key: $0]) } ?? .movedOn(current: nil)
    }

    private func decodeRows(_ rows: PostgresRowSequence) async throws -> LoadedRows {
        var result: LoadedRows = ([:], [])
        for try await (key, text, revision) in rows.decode((String, String?, Int64).self) {
            decodeRow(key: key, text: text, revision: revision, into: &result)
        }
        return result
    }

    /// Adds a row read from the table (`nil` text: a removal) to `result`,
    /// or, when its text is not JSON, an error naming it: never applied.
    private func decodeRow(key: String, text: String?, revision: Int64, into result: inout LoadedRows) {
        guard let text else {
            result.rows[key] = Row(value: nil, revision: revision)
            return
        }
        do {
            result.rows[key] = Row(value: try StoredValue(jsonText: text), revision: revision)
        } catch {
            result.unreadable.append(
                StorageError(
                    code: .invalidJSON, key: key,
                    reason: "the row in \(schema.entries) (namespace \"\(namespace)\", revision \(revision)) does not hold JSON text "
                        + "(\(error.reason)); a value is kept as JSON, such as 42, true, \"text\" or [1, 2]. The store keeps the value it had.",
                    underlyingError: error))
        }
    }

    /// What went wrong, as the end of a sentence: when a request waited in
    /// vain for a connection, why the pool's last attempt to connect failed.
    func explanation(of error: any Error) -> String {
        let explanation = DatabaseFailure.explanation(of: error)
        let cause = DatabaseFailure.unwrapped(error)
        let waitedForAConnection = cause is DatabaseFailure.NoAnswer || (cause as? PSQLError).map { $0.code != .server } == true
        guard waitedForAConnection, let attempt = attempts.lastFailureExplanation else { return explanation }
        return "\(explanation); \(attempt)"
    }

    /// `key` in the form rows are keyed by.
    static func databaseKey(_ key: String) -> String {
        key.precomposedStringWithCanonicalMapping
    }
}
