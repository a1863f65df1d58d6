import NIOCore
import PostgresNIO
import Stowage
import StowageLocking
@testable import StowagePostgres

/// Whether `connection` closes within `bound`: a test's limit on the wait, not a pause.
func closes(_ connection: PostgresConnection, within bound: TimeAmount = .seconds(20)) async throws -> Bool {
    let outcome = FirstOutcome<Bool>()
    connection.closeFuture.whenComplete { _ in outcome.resolve(.success(true)) }
    let limit = connection.eventLoop.scheduleTask(in: bound) { outcome.resolve(.success(false)) }
    defer { limit.cancel() }
    return try await outcome.value()
}

extension PostgresStore {
    /// The connection the store holds for its steps, if it holds one now.
    var heldConnection: PostgresConnection? { backing.state.withLock { $0.heldConnection } }

    /// The connection the store holds for its steps, once it holds one (within 30 s).
    func connectionHeldForSteps() async throws -> PostgresConnection {
        try await backing.connectionFirstHeld.value(within: .seconds(30)) { _ in
            StorageError(code: .timedOut, reason: "the store held no connection for its steps within 30 s")
        }
        guard let connection = heldConnection else {
            throw StorageError(code: .storeFailure, reason: "the store gave its held connection back before the test looked")
        }
        return connection
    }
}
