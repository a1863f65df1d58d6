import PostgresNIO
import Stowage
import StowageLocking

/// Whether a request's statement may still be sent, decided once, under one
/// lock: by the pool handing over a connection, or by the request's deadline.
///
/// A deadline that finds no connection handed over closes the gate, and the
/// statement is then never sent, however late the pool answers: so "nothing
/// was written" is a fact, not a guess from timing, even when the store's
/// thread is busy and its timers fire late.
final class StatementGate: Sendable {
    private enum Phase {
        case waiting
        case leased(PostgresConnection)
        case closed
    }

    private let phase = Locked(Phase.waiting)

    init() {}

    /// Takes `connection` for the statement; `false` when the deadline closed the gate first.
    func lease(_ connection: PostgresConnection) -> Bool {
        phase.withLock { phase in
            guard case .waiting = phase else { return false }
            phase = .leased(connection)
            return true
        }
    }

    /// At the deadline: `nil` when no connection was handed over (the gate is
    /// now closed, and nothing will be sent), else the leased connection.
    func closeAtDeadline() -> PostgresConnection? {
        phase.withLock { phase in
            if case .leased(let connection) = phase { return connection }
            phase = .closed
            return nil
        }
    }

    /// Whether a connection was handed over, so the statement may have been sent.
    var wasLeased: Bool {
        phase.withLock { phase in
            if case .leased = phase { return true }
            return false
        }
    }
}
