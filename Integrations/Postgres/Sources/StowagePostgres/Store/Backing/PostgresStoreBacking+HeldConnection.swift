import NIOCore
import PostgresNIO
import Stowage
import StowageLocking

/// The connection the store holds for its steps while it runs.
///
/// Steps run one at a time, so one connection serves them all. Taking it
/// from the pool for every statement cost a commit about a tenth of its
/// time (the pool's bookkeeping and the idle timers it sets and cancels on
/// each lease). A task inside `run()` leases the connection the first load
/// used, lends it to steps until it closes or the store stops, then waits
/// for the step using it to end and gives it back; after a pause it leases
/// another. It costs a store one connection for as long as it runs, where
/// the pool closed an idle one after a minute. A leased connection gets no
/// keep-alive from the pool, so the holder keeps it alive itself: once it
/// has been idle for `heartbeatInterval`, it asks `SELECT 1` on it, within
/// the operation timeout, as the listener does on its own connection. One
/// gone silent (a middlebox that dropped the idle flow, a frozen server) is
/// then closed by the question's deadline and replaced, before a step needs
/// it, instead of making the next step wait out its own deadline.
/// While none is held, steps lease from the pool as before. Reads of the
/// history, which run beside the steps, always use the pool.
extension PostgresStoreBacking {
    /// Runs a step's `body` on the held connection, or on one of the pool's
    /// when none is free, ending it at `timeout` either way: on the held
    /// connection its deadline (an entry of ``Deadlines``) closes it (the holder then takes
    /// another), as ``PostgresDatabase/withConnection(within:gate:on:_:)``
    /// does for the pool's. `executor` runs `body` when it goes to the pool;
    /// on the held connection, on `executor` too, in a task that races the deadline.
    func withStepConnection<Value: Sendable>(
        within timeout: Duration, gate: StatementGate = StatementGate(), on executor: any TaskExecutor = StoreExecutor.shared,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        guard let held = takeHeldConnection() else { return try await database.withConnection(within: timeout, gate: gate, on: executor, body) }
        return try await run(body, on: held, within: timeout, gate: gate, executor: executor)
    }

    /// Runs `body` on the held connection if it is free, as
    /// ``withStepConnection(within:gate:on:_:)`` would; `nil` at once if not.
    private func withHeldConnectionIfFree<Value: Sendable>(
        within timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value? {
        guard let held = takeHeldConnection() else { return nil }
        return try await run(body, on: held, within: timeout, gate: StatementGate(), executor: StoreExecutor.shared)
    }

    /// The held connection, marked in use; `nil` when there is none, or a step uses it.
    private func takeHeldConnection() -> PostgresConnection? {
        update { state -> PostgresConnection? in
            // One that closed (killed, or its deadline passed) is the holder's to replace; the pool stands in.
            guard let connection = state.heldConnection, !state.heldConnectionInUse, !connection.isClosed else { return nil }
            state.heldConnectionInUse = true
            return connection
        }
    }

    /// Runs `body` on `held`, taken with ``takeHeldConnection()``, racing its deadline, and frees it.
    private func run<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value, on held: PostgresConnection, within timeout: Duration,
        gate: StatementGate, executor: any TaskExecutor
    ) async throws -> Value {
        defer { freeHeldConnection() }
        // A deadline that closed the gate first means the statement is never sent.
        guard gate.lease(held) else { throw DatabaseFailure.NotSent(cause: DatabaseFailure.NoAnswer(timeout: timeout)) }
        // As for the pool's connections: a statement on a connection gone silent, or closed under
        // it, may never end, so the deadline answers for it and closes the connection.
        let outcome = FirstOutcome<Value>()
        let work = Task(executorPreference: executor) {
            do { outcome.resolve(.success(try await body(held))) } catch { outcome.resolve(.failure(error)) }
        }
        let timer = Deadlines.shared.schedule(in: timeout) {
            // Closed first, so the next step does not take a connection about to close.
            let closed: EventLoopFuture<Void> = held.close()
            guard outcome.resolve(.failure(DatabaseFailure.NoAnswer(timeout: timeout))) else { return }
            _ = closed
            work.cancel()
        }
        defer { timer.cancel() }
        // A store that stops at once does not wait for the statement either.
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            guard outcome.resolve(.failure(CancellationError())) else { return }
            work.cancel()
            let _: EventLoopFuture<Void> = held.close()
        }
    }

    /// The step is done with the held connection: tells a holder waiting to give it back.
    private func freeHeldConnection() {
        let freed = update { state in
            state.heldConnectionInUse = false
            state.heldConnectionLastUsed = .now
            defer { state.heldConnectionFreed = nil }
            return state.heldConnectionFreed
        }
        freed?.resolve(.success(()))
    }

    /// Holds a connection of the pool for the store's steps while it runs,
    /// from the first load on; leases another, after a pause, when it closes.
    func holdConnection() async {
        _ = try? await firstLoadDone.value()
        var delay = options.initialRetryDelay
        while !Task.isCancelled, state.withLock({ $0.phase == .running }) {
            do {
                // The connection is lent out of this closure, and used only while it runs.
                try await database.client.withConnection { connection in
                    let lent = update { state -> Bool in
                        guard state.phase == .running else { return false }
                        state.heldConnection = connection
                        state.heldConnectionRecalled = false
                        state.heldConnectionLastUsed = .now
                        return true
                    }
                    guard lent else { return }
                    connectionFirstHeld.resolve(.success(()))
                    connection.closeFuture.whenComplete { [self] _ in recallHeldConnection(ifStill: connection) }
                    await keepAlive(connection)
                    await giveBackHeldConnection()
                }
                delay = options.initialRetryDelay
            } catch {
                // The pool could not lease one; the steps' own statements say why.
            }
            if !Task.isCancelled, state.withLock({ $0.phase == .running }) { await pause(&delay) }
        }
    }

    /// Asks `SELECT 1` on the held connection whenever it has been idle for
    /// `heartbeatInterval`, until it is recalled. A question without an
    /// answer by the operation timeout closes it (the step's deadline does),
    /// which recalls it. It waits until the connection will have idled that
    /// long (a whole interval while a step uses it), and asks only on the
    /// held connection while no step uses it.
    private func keepAlive(_ connection: PostgresConnection) async {
        let interval = options.heartbeatInterval
        let logger = database.logger
        while !Task.isCancelled {
            let wake = FirstOutcome<Void>()
            let wait = update { state -> Duration? in
                guard !state.heldConnectionRecalled else { return nil }
                state.heldConnectionWake = wake
                if state.heldConnectionInUse { return interval }
                return interval - (ContinuousClock.now - state.heldConnectionLastUsed)
            }
            guard let wait else { return }
            if wait > .zero {
                let timer = connection.eventLoop.scheduleTask(in: TimeAmount(saturating: wait)) { wake.resolve(.success(())) }
                _ = try? await wake.value()
                timer.cancel()
                continue
            }
            let asked: Bool? = try? await withHeldConnectionIfFree(within: options.operationTimeout) { connection in
                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                return true
            }
            // A step has it, or it closed and is about to be recalled: the next look is an interval away.
            if asked == nil { update { $0.heldConnectionLastUsed = .now } }
        }
    }

    /// Stops lending the held connection, and waits until no step uses it.
    private func giveBackHeldConnection() async {
        let freed = update { state -> PendingReply<Void>? in
            state.heldConnection = nil
            state.heldConnectionWake = nil
            guard state.heldConnectionInUse else { return nil }
            let freed = PendingReply<Void>()
            state.heldConnectionFreed = freed
            return freed
        }
        _ = try? await freed?.value()
    }

    /// Makes the holder give the connection back: the store stops.
    func recallHeldConnection() {
        recallHeldConnection(ifStill: nil)
    }

    /// Makes the holder give `connection` back, if it is still the one held
    /// (any, for `nil`): it closed, or the store stops.
    private func recallHeldConnection(ifStill connection: PostgresConnection?) {
        let wake = update { state -> FirstOutcome<Void>? in
            if let connection, state.heldConnection !== connection { return nil }
            state.heldConnectionRecalled = true
            defer { state.heldConnectionWake = nil }
            return state.heldConnectionWake
        }
        wake?.resolve(.success(()))
    }
}
