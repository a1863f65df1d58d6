import PostgresNIO

extension PostgresStore {
    /// What the database said, as the `underlyingError` of the store's
    /// `StorageError`s: the SQLSTATE and the server's message.
    ///
    /// It stands in for postgres-nio's `PSQLError`, whose description prints
    /// the statement and its bound values, which may be a secret the app
    /// wrote. Neither is kept here.
    public struct DatabaseError: Error, Sendable, CustomStringConvertible {
        /// The five-character SQLSTATE the server gave, such as `"23514"`
        /// (a check constraint refused the row); `nil` when the failure came
        /// before any answer from the server (a refused connection, say).
        public let sqlState: String?
        /// The server's message, or what went wrong on the way to it.
        public let message: String

        public var description: String {
            guard let sqlState else { return "PostgreSQL: \(message)" }
            return "PostgreSQL: \(message) (SQLSTATE \(sqlState))"
        }

        init(_ error: PSQLError) {
            if error.code == .server {
                sqlState = error.serverInfo?[.sqlState]
                message = error.serverInfo?[.message] ?? "an error without a message"
            } else {
                sqlState = nil
                message = DatabaseFailure.explanation(of: error)
            }
        }

        /// A transaction failed with no cause postgres-nio could name.
        static let transactionFailed = DatabaseError(sqlState: nil, message: "a transaction failed")

        private init(sqlState: String?, message: String) {
            self.sqlState = sqlState
            self.message = message
        }
    }
}
