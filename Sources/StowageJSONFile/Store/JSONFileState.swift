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
    /// The failed writes among those that were not refusals while read-only:
    /// the write that succeeds next reports how many there were.
    var failedWritesToTell = 0
    /// Why the store refuses writes, when it does.
    var readOnlyReason: String?
    /// The owner and mode of the file when it and its folder were last found
    /// writable; `nil` when they were not, or there was no file.
    var foundWritableAs: FileStatus.Access?
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
        Self.inOrder(pending)
    }

    /// `changes` in the order they were made.
    static func inOrder(_ changes: [String: PendingChange]) -> [(key: String, change: PendingChange)] {
        changes.map { ($0.key, $0.value) }.sorted { $0.change.sequence < $1.change.sequence }
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

    /// Checks that `changes` apply to what readers see, without applying
    /// them: a compare-and-swap or a transaction is refused before it is
    /// written, not after.
    func validate(_ changes: [(key: String, value: StoredValue?)], layout: JSONFileStore.KeyLayout) throws(StorageError) {
        var scratch: [String: StoredValue] = [:]
        for (key, _) in changes {
            let topKey = layout.topLevelKey(of: key)
            scratch[topKey] = visible[topKey]
        }
        for (key, value) in changes { try layout.apply(value, forKey: key, to: &scratch) }
    }

    /// Rebuilds what readers see of the top-level members `topKeys`, from
    /// `disk` and the pending changes of those members, in order: a write
    /// that changed `disk` (or a compare-and-swap recorded as pending) becomes
    /// visible without going over the whole document.
    /// - Returns: the keys whose visible value changed, and why changes were dropped.
    mutating func rebuildVisible(of topKeys: Set<String>, layout: JSONFileStore.KeyLayout) -> (changed: [String], dropped: [StorageError]) {
        var before: [String: StoredValue] = [:]
        var rebuilt: [String: StoredValue] = [:]
        for topKey in topKeys {
            before[topKey] = visible[topKey]
            rebuilt[topKey] = disk[topKey]
        }
        var dropped: [StorageError] = []
        for (key, change) in orderedPending where topKeys.contains(layout.topLevelKey(of: key)) {
            do throws(StorageError) {
                try layout.apply(change.value, forKey: key, to: &rebuilt)
            } catch {
                pending.removeValue(forKey: key)
                dropped.append(error)
            }
        }
        for topKey in topKeys { visible[topKey] = rebuilt[topKey] }
        return (layout.changedKeys(from: before, to: rebuilt), dropped)
    }
}

/// A change made in this process and not yet written.
struct PendingChange: Sendable {
    /// The new value; `nil` removes the key.
    var value: StoredValue?
    /// When it was made, relative to the other pending changes.
    var sequence: UInt64
}
