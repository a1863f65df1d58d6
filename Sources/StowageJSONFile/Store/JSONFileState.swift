import Stowage
import StowageJSON

/// What one file's backing knows, guarded by its lock.
struct JSONFileState: Sendable {
    /// The top-level object as last read from or written to the file.
    var disk: [String: StoredValue] = [:]
    /// The identity of the file `disk` came from; `nil` when there was no file.
    var diskIdentity: FileStatus.Identity?
    /// The document this process last wrote, as serialized, and the identity
    /// of the file it made: while `diskIdentity` is that identity, `disk` is
    /// that document, and the next write formats only the changed members.
    var lastWritten: (object: JSONSerializedObject, identity: FileStatus.Identity)?
    /// What readers see: `disk` with the pending changes applied.
    var visible: [String: StoredValue] = [:]
    /// Changes not yet in the file, the latest per key, ordered by `sequence`.
    var pending: [String: PendingChange] = [:]
    var nextSequence: UInt64 = 0
    /// Whether a background write is already on its way.
    var isWriteScheduled = false
    /// Why the store refuses writes, when it does.
    var readOnlyReason: String?
    var lastError: StorageError?
    /// The unreadable version of the file last reported, so a file that stays
    /// broken while someone edits it is reported once, not on every check.
    var reportedUnreadableIdentity: FileStatus.Identity?

    /// Records a change to write later, superseding any earlier one for the key.
    mutating func recordPending(_ value: StoredValue?, forKey key: String) {
        pending[key] = PendingChange(value: value, sequence: nextSequence)
        nextSequence &+= 1
    }

    /// Applies a change to what readers see and records it to write later.
    /// - Returns: the keys whose values changed: the key itself, and in the
    ///   nested layout the objects around and below it.
    mutating func applyChange(_ value: StoredValue?, forKey key: String, layout: JSONFileStore.KeyLayout) throws(StorageError) -> [String] {
        let topKey = layout.topLevelKey(of: key)
        let before = visible[topKey]
        try layout.apply(value, forKey: key, to: &visible)
        recordPending(value, forKey: key)
        let after = visible[topKey]
        return layout.changedKeys(from: before.map { [topKey: $0] } ?? [:], to: after.map { [topKey: $0] } ?? [:])
    }

    /// The pending changes in the order they were made.
    var orderedPending: [(key: String, change: PendingChange)] {
        pending.map { ($0.key, $0.value) }.sorted { $0.change.sequence < $1.change.sequence }
    }
}

/// A change made in this process and not yet written.
struct PendingChange: Sendable {
    /// The new value; `nil` removes the key.
    var value: StoredValue?
    /// When it was made, relative to the other pending changes.
    var sequence: UInt64
}
