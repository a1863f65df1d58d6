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
    /// Whether a background write is scheduled and has not started yet.
    var isWriteScheduled = false
    /// Writes that failed since the last one that succeeded; sets how long the next retry waits.
    var failedWrites = 0
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

    /// Rebuilds what readers see: `disk` with the pending changes applied in
    /// order. A change that no longer fits (another writer made its key a
    /// prefix, or a value) stands down and is dropped.
    /// - Returns: the keys whose visible value changed, and why changes were dropped.
    mutating func rebuildVisible(layout: JSONFileStore.KeyLayout) -> (changed: [String], dropped: [StorageError]) {
        var rebuilt = disk
        var dropped: [StorageError] = []
        for (key, change) in orderedPending {
            do throws(StorageError) {
                try layout.apply(change.value, forKey: key, to: &rebuilt)
            } catch {
                pending.removeValue(forKey: key)
                dropped.append(error)
            }
        }
        let changed = layout.changedKeys(from: visible, to: rebuilt)
        visible = rebuilt
        return (changed, dropped)
    }

    /// What a compare-and-swap or a transaction is about to record as
    /// pending, taken before it does, so the change can be taken back.
    func changesAbout(toBeRecordedFor keys: some Sequence<String>) -> RecordedChanges {
        RecordedChanges(
            previous: Dictionary(keys.map { ($0, pending[$0]) }, uniquingKeysWith: { first, _ in first }),
            firstSequence: nextSequence)
    }

    /// Takes back what `recorded` recorded, except where a later change of
    /// the same key has superseded it, and rebuilds what readers see.
    mutating func takeBack(_ recorded: RecordedChanges, layout: JSONFileStore.KeyLayout) -> (changed: [String], dropped: [StorageError]) {
        for (key, previous) in recorded.previous {
            guard let current = pending[key], current.sequence >= recorded.firstSequence, current.sequence < recorded.endSequence else { continue }
            pending[key] = previous
        }
        return rebuildVisible(layout: layout)
    }
}

/// The pending changes a compare-and-swap or a transaction recorded.
struct RecordedChanges: Sendable {
    /// Each key's pending change before, `nil` when it had none.
    var previous: [String: PendingChange?]
    /// The sequence numbers the recorded changes got: from `firstSequence` to `endSequence`, exclusive.
    var firstSequence: UInt64
    var endSequence: UInt64 = .max

    /// Marks where the recording ended, so later changes are told apart.
    func ended(at state: JSONFileState) -> RecordedChanges {
        var ended = self
        ended.endSequence = state.nextSequence
        return ended
    }
}

/// A change made in this process and not yet written.
struct PendingChange: Sendable {
    /// The new value; `nil` removes the key.
    var value: StoredValue?
    /// When it was made, relative to the other pending changes.
    var sequence: UInt64
}
