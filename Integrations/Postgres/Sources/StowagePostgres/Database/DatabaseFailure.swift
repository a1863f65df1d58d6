import PostgresNIO
import Stowage

/// What the store makes of an error from the database: whether trying
/// again later may succeed, and a sentence for a `StorageError`.
///
/// The sentence is built from the error's code, the server's message and
/// SQLSTATE, and the network error's description, never from
/// `String(reflecting:)` of a `PSQLError`, which carries the query and its
/// bound values. Credentials appear in none of them.
enum DatabaseFailure {
    /// No answer from the database within the time allowed.
    struct NoAnswer: Error {
        let timeout: Duration
    }

    /// A failure before any connection was handed over: no statement was
    /// sent, so nothing was written.
    struct NotSent: Error {
        let cause: any Error
    }

    /// Whether a statement may have reached the database before `error`.
    static func mayHaveBeenSent(_ error: any Error) -> Bool {
        !(error is NotSent)
    }

    /// Whether the one statement that failed with `error` may have
    /// committed: not if it was never sent, nor if the server answered that
    /// it rolled the transaction back (SQLSTATE class 40: a serialization
    /// failure, a deadlock; 40003 excepted, "completion unknown") or that it
    /// may not write (25006, a read-only server). Any other answer may
    /// have come after the store's procedures had committed.
    static func mayHaveCommitted(_ error: any Error) -> Bool {
        guard mayHaveBeenSent(error) else { return false }
        guard let error = unwrapped(error) as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return true }
        return !((state.hasPrefix("40") && state != "40003") || state == "25006")
    }

    /// The SQLSTATE classes that no later try gets past: data exceptions
    /// (22), integrity constraints (23), syntax errors and access rules such
    /// as a missing permission (42), program limits such as a key too long
    /// for the index (54). Every other server error may pass with time: a
    /// lock or statement timeout, a read-only server during a failover, a
    /// full disk, a shutdown, a serialization failure or a deadlock.
    private static let permanentClasses: Set<String> = ["22", "23", "42", "54"]

    /// The error inside a transaction's wrapper, where the cause is.
    static func unwrapped(_ error: any Error) -> any Error {
        if let notSent = error as? NotSent { return unwrapped(notSent.cause) }
        guard let error = error as? PostgresTransactionError else { return error }
        return error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
    }

    static func isTransient(_ error: any Error) -> Bool {
        // A failure before any statement went never judged the statement, whatever the server said
        // to the connection attempt: it may pass once a connection can be made.
        if error is NotSent { return true }
        switch unwrapped(error) {
        case is NoAnswer: return true
        case let error as PSQLError:
            guard error.code == .server else { return true }
            let state = error.serverInfo?[.sqlState] ?? ""
            return !permanentClasses.contains(String(state.prefix(2)))
        case is StorageError: return false
        default: return true
        }
    }

    /// `error` as a `StorageError` may keep it: a PostgreSQL error becomes a
    /// ``PostgresStore/DatabaseError``, without the statement and bound
    /// values its description prints; other errors (a network error, a
    /// timeout, a `StorageError`) name no query and stay as they are.
    static func reportable(_ error: any Error) -> any Error {
        switch unwrapped(error) {
        case let error as PSQLError: PostgresStore.DatabaseError(error)
        case is PostgresTransactionError: PostgresStore.DatabaseError.transactionFailed
        case let error: error
        }
    }

    /// What went wrong, as the end of a sentence.
    static func explanation(of error: any Error) -> String {
        switch unwrapped(error) {
        case let error as NoAnswer:
            return "no answer within \(error.timeout)"
        case let error as PSQLError where error.code == .server:
            let message = error.serverInfo?[.message] ?? "an error without a message"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server said: \(message)\(state)"
        case let error as PSQLError:
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        case let error as StorageError:
            return error.reason
        case is PostgresTransactionError:
            return "a transaction failed"
        case let error:
            // Not a PostgreSQL error (those carry the query): a network or TLS error, which names no secret.
            return "\(error)"
        }
    }
}
