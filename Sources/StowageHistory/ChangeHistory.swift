#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Stowage

/// A store that records every change of its keys, who made it and when:
/// what an admin page and the `stowage` tool read to answer "who changed
/// this, and from what?". The PostgreSQL store records with a trigger, in the
/// transaction of the change, so an operator's `UPDATE` in `psql` is recorded too.
public protocol ChangeHistory: Sendable {
    /// The recorded entries, newest first: of `key` (every key when `nil`),
    /// from `date` on (all when `nil`), at most `limit`.
    func changes(forKey key: String?, since date: Date?, limit: Int) async throws(StorageError) -> [ChangeRecord]

    /// Records that `author` asked to change `key` and was refused, and why,
    /// so that a forbidden attempt is seen beside the changes.
    func recordRefusal(forKey key: String, author: String, reason: String) async throws(StorageError)
}
