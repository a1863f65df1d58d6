public import Foundation
import Stowage
public import StowageHistory

/// The history of changes: every change of the store's table, by anyone,
/// recorded by a trigger in the transaction that makes it (see ``Options/author``,
/// ``Options/secretKeys`` and ``Options/historyRetention``).
extension PostgresStore: ChangeHistory {
    /// The namespace's recorded entries, newest first: of `key` (every key
    /// when `nil`), from `date` on, at most `limit`. Secret keys' entries
    /// say that they changed, without their values.
    /// - Throws: `StorageError` when the database does not answer within the operation timeout.
    public func changes(forKey key: String? = nil, since date: Date? = nil, limit: Int = 100) async throws(StorageError) -> [ChangeRecord] {
        try await backing.withDatabase(doing: "could not read the history") { database, connection in
            try await database.history(forKey: key, since: date, limit: limit, on: connection)
        }
    }

    public func recordRefusal(forKey key: String, author: String, reason: String) async throws(StorageError) {
        try await backing.withDatabase(doing: "could not record a refused change of \(key)") { database, connection in
            try await database.recordRefusal(forKey: key, author: author, reason: reason, on: connection)
        }
    }

    /// Deletes the namespace's entries beyond ``Options/historyRetention`` now,
    /// as the store does every ``Options/historyPruningInterval`` while it
    /// runs, in batches that never make a writer wait nor wait for another pruner.
    /// - Returns: how many entries were deleted.
    @discardableResult
    public func pruneHistory() async throws(StorageError) -> Int {
        try await backing.pruneHistory()
    }

    /// Whether `key` matches one of ``Options/secretKeys``.
    public func isSecret(key: String) -> Bool {
        options.secretKeys.contains { SecretKeyPattern.matches(key, $0) }
    }
}
