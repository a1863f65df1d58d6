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
/// keep-alive from the pool: behind a middlebox that drops idle flows it
/// can break unseen, and the next step then waits out its deadline before
/// the holder replaces it (a known limit, not yet mended).
/// While none is held, steps lease from the pool as before. Reads of the
/// history, which run beside the steps, always use the pool.
extension PostgresStoreBacking {
    /// Runs a step's `body` on the held connection, or on one of the pool's
    /// when none is free, ending it at `timeout` either way: on the held
    /// connection a timer on its event loop closes it (the holder then takes
    /// another), as ``PostgresDatabase/withConnection(within:gate:on:_:)``
    /// does for the pool's. `executor` runs `body` when it goes to the pool;
    /// on the held connection, on `executor` too, in a task that races the deadline.
    func withStepConnection<Value: Sendable>(
        within timeout: Duration, gate: StatementGate = StatementGate(), on executor: any TaskExecutor = StoreExecutor.shared,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let held = update { state -> PostgresConnection? in
            // One that closed (killed, or its deadline passed) is the holder's to replace; the pool stands in.
            guard let connection = state.heldConnection, !state.heldConnectionInUse, !connection.isClosed else { return nil }
            state.heldConnectionInUse = true
            return connection
        }
        guard let held else { return try await database.withConnection(within: timeout, gate: gate, on: executor, body) }
        defer { freeHeldConnection() }
        // A deadline that closed the gate first means the statement is never sent.
        guard gate.lease(held) else { throw DatabaseFailure.NotSent(cause: DatabaseFailure.NoAnswer(timeout: timeout)) }
        // As for the pool's connections: a statement on a connection gone silent, or closed under
        // it, may never end, so the deadline answers for it and closes the connection.
        let outcome = FirstOutcome<Value>()
        let work = Task(executorPreference: executor) {
            do { outcome.resolve(.success(try await body(held))) } catch { outcome.resolve(.failure(error)) }
        }
        let timer = held.eventLoop.scheduleTask(in: TimeAmount(saturating: timeout)) {
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
            let recalled = PendingReply<Void>()
            do {
                // The connection is lent out of this closure, and used only while it runs.
                try await database.client.withConnection { connection in
                    let lent = update { state -> Bool in
                        guard state.phase == .running else { return false }
                        state.heldConnection = connection
                        state.heldConnectionRecalled = recalled
                        return true
                    }
                    guard lent else { return }
                    connectionFirstHeld.resolve(.success(()))
                    connection.closeFuture.whenComplete { _ in recalled.resolve(.success(())) }
                    _ = try? await recalled.value()
                    await giveBackHeldConnection()
                }
                delay = options.initialRetryDelay
            } catch {
                // The pool could not lease one; the steps' own statements say why.
            }
            if !Task.isCancelled, state.withLock({ $0.phase == .running }) { await pause(&delay) }
        }
    }

    /// Stops lending the held connection, and waits until no step uses it.
    private func giveBackHeldConnection() async {
        let freed = update { state -> PendingReply<Void>? in
            state.heldConnection = nil
            state.heldConnectionRecalled = nil
            guard state.heldConnectionInUse else { return nil }
            let freed = PendingReply<Void>()
            state.heldConnectionFreed = freed
            return freed
        }
        _ = try? await freed?.value()
    }

    /// Makes the holder give the connection back: the store stops.
    func recallHeldConnection() {
        let recalled = update { state in
            defer { state.heldConnectionRecalled = nil }
            return state.heldConnectionRecalled
        }
        recalled?.resolve(.success(()))
    }
}
