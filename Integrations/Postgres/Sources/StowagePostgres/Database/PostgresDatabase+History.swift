import Foundation
import PostgresNIO
import Stowage
import StowageHistory
import StowageJSON

/// The statements of the history: reading it, recording a refusal,
/// declaring secret keys, pruning.
extension PostgresDatabase {
    /// Adds `patterns` (with `*` for any text) to the namespace's secret keys.
    func addSecretPatterns(_ patterns: [String], on connection: PostgresConnection) async throws {
        guard !patterns.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append(patterns.map(SecretKeyPattern.likePattern))
        try await connection.query(PostgresQuery(unsafeSQL: schema.insertSecretPatterns, binds: binds), logger: logger)
    }

    /// The namespace's entries, newest first.
    func history(forKey key: String?, since date: Date?, limit: Int, on connection: PostgresConnection) async throws -> [ChangeRecord] {
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append(key.map(Self.databaseKey))
        binds.append(date)
        binds.append(Int64(max(0, limit)))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: schema.selectHistory, binds: binds), logger: logger)
        var records: [ChangeRecord] = []
        for try await row in rows.decode(
            (Int64, String, String, String?, String?, Bool, Bool, Bool, Date, String?, String, String, String?).self)
        {
            let (id, kind, key, oldText, newText, hadValue, hasValue, redacted, date, author, role, application, reason) = row
            records.append(
                ChangeRecord(
                    id: id, kind: ChangeRecord.Kind(rawValue: kind) ?? .change, key: key, oldValue: Self.value(of: oldText),
                    newValue: Self.value(of: newText), hadValue: hadValue, hasValue: hasValue, isRedacted: redacted, date: date,
                    author: author, origin: application.isEmpty ? "role \(role)" : "role \(role), application \(application)", reason: reason))
        }
        return records
    }

    /// A value as the history shows it; text an operator wrote that is not JSON shows as that text.
    private static func value(of text: String?) -> StoredValue? {
        guard let text else { return nil }
        return (try? StoredValue(jsonText: text)) ?? .string(text)
    }

    func recordRefusal(forKey key: String, author: String, reason: String, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append(Self.databaseKey(key))
        binds.append(author)
        binds.append(reason)
        try await connection.query(PostgresQuery(unsafeSQL: schema.insertRefusal, binds: binds), logger: logger)
    }

    /// Deletes one batch of entries beyond `retention`.
    /// - Returns: how many were deleted; fewer than a batch means none are left.
    func pruneHistoryBatch(to retention: PostgresStore.HistoryRetention, on connection: PostgresConnection) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(namespace)
        let sql: String
        switch retention {
        case .forever: return 0
        case .maximumAge(let age):
            let (seconds, attoseconds) = age.components
            binds.append(Double(seconds) + Double(attoseconds) / 1e18)
            sql = schema.pruneOlderThan
        case .latestPerKey(let count):
            binds.append(Int64(max(0, count)))
            sql = schema.pruneBeyondLatest
        }
        var deleted = 0
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql + " RETURNING id", binds: binds), logger: logger) { deleted += 1 }
        return deleted
    }
}
