#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Stowage
import StowageJSON
import StowageLocking

extension JSONFileBacking {
    /// Writes every pending change, after rereading the file if another
    /// process changed it, so that both processes' keys survive. When the
    /// write fails, a background write tries again (see ``scheduleRetry(after:)``).
    /// - Returns: the keys other writers changed, for announcing.
    func writePendingChanges() throws(StorageError) -> [String] {
        do {
            let changed = try withFileLock { () throws(StorageError) in
                let changed = try reload(mode: .locked)
                try writeBatchUnderLock()
                return changed
            }
            return changed
        } catch {
            scheduleRetry(after: error)
            throw error
        }
    }

    /// Writes the file from `disk` plus the pending changes; the caller holds
    /// the file lock and has just reread the file. On failure the changes stay
    /// pending, so the next write, `flush()` or the exit writes them anew into
    /// a fresh temporary file.
    func writeBatchUnderLock() throws(StorageError) {
        _ = try writeBatchUnderLock(staging: [], releasingLockEarly: true)
    }

    /// Writes a compare-and-swap or a transaction, after the other pending
    /// changes; the caller holds the file lock, has reread the file and
    /// checked the change against it.
    ///
    /// The change is not applied to what readers see until the file holds it.
    /// Applied before, it would have to be taken back when the write fails or
    /// starts over under a replaced lock file, and a reader could see a
    /// counter go up, then down, then up again. Nor is it pending meanwhile:
    /// left pending after a failure, it would be written later over whatever
    /// other processes wrote (their increments of a counter lost), though the
    /// caller, a `modify` that tries again say, was told it failed. Plain
    /// writes made meanwhile are later, and stay pending over it. When only
    /// the folder's `fsync` failed, the file already holds the change, so it
    /// is applied, and pending to be made durable.
    /// - Parameter isCompareAndSwap: keeps the lock through the folder's
    ///   `fsync` (see ``releaseLockFileAfterWriting()``). This process's next
    ///   compare-and-swap of the key (the next turn of a loop of `modify`s)
    ///   starts from the value just written: let go earlier, the lock lets
    ///   another writer change the file meanwhile, and that compare-and-swap
    ///   fails and takes the lock again. With eight processes incrementing
    ///   one counter, a `modify` then took 2.4 turns of the lock instead of
    ///   1.3, and gained nothing.
    /// - Returns: the keys whose visible value changed, for announcing.
    func writeStagedChangeUnderLock(_ staged: [(key: String, value: StoredValue?)], isCompareAndSwap: Bool) throws(StorageError) -> [String] {
        try writeBatchUnderLock(staging: staged, releasingLockEarly: !isCompareAndSwap)
    }

    private func writeBatchUnderLock(staging staged: [(key: String, value: StoredValue?)], releasingLockEarly: Bool) throws(StorageError) -> [String] {
        let layout = options.keyLayout
        if let reason = state.withLock({ $0.readOnlyReason }) {
            // Never write over a file the store could not make sense of; the changes stay pending.
            throw JSONFileBacking.readOnlyError(key: staged.first?.key, reason: reason)
        }
        // `disk` is moved out while the file is written, so the batch is applied
        // to it in place: a copy of a 1,000,000-key document was 40% of a flush.
        // Only the holder of the file gate (this writer) reads `disk`.
        // The pending changes are moved out too, and put in order after
        // unlocking: sorting 100,000 of them under the lock stalled every setter.
        var (pending, document, identity, lastWritten, firstStagedSequence) = state.withLock { state in
            defer {
                state.pending = [:]
                state.disk = [:]
                // The staged changes come after the batch and before any change made while they are written.
                state.nextSequence &+= UInt64(staged.count)
            }
            return (state.pending, state.disk, state.diskIdentity, state.lastWritten, state.nextSequence)
        }
        let batch = JSONFileState.inOrder(pending)
        pending = [:]
        guard !batch.isEmpty || !staged.isEmpty else {
            state.withLock { $0.disk = document }
            return []
        }
        let stagedTopKeys = Set(staged.map { layout.topLevelKey(of: $0.key) })
        // What `disk` held at the members the write changes, to put back if it fails.
        var replacedMembers: [String: StoredValue?] = [:]
        for key in batch.lazy.map(\.key) + staged.map(\.key) {
            let topKey = layout.topLevelKey(of: key)
            if replacedMembers[topKey] == nil { replacedMembers[topKey] = .some(document[topKey]) }
        }
        do {
            for (key, change) in batch {
                // `reload` dropped every change that conflicts with this disk state.
                try? layout.apply(change.value, forKey: key, to: &document)
            }
            for (key, value) in staged { try layout.apply(value, forKey: key, to: &document) }
            let serialized: JSONSerializedObject
            if let lastWritten, lastWritten.identity == identity {
                let changedKeys = Set(batch.map { layout.topLevelKey(of: $0.key) }).union(stagedTopKeys)
                serialized = try serializer.serializeObject(document, changing: changedKeys, since: lastWritten.object)
            } else {
                serialized = try serializer.serializeObject(document, expectedByteCount: Int(identity?.size ?? 0) + 64)
            }
            let written = try writeFile(serialized.bytes, releasingLockEarly: releasingLockEarly)
            let (changed, dropped, earlierFailures) = state.withLock { state in
                let earlierFailures = state.failedWritesToTell
                state.failedWrites = 0
                state.failedWritesToTell = 0
                state.disk = document
                state.diskIdentity = written.identity
                // Past this size the text is not kept, and the next write formats the file from scratch.
                state.lastWritten = serialized.bytes.count <= Self.largestTextKeptForTheNextWrite ? (serialized, written.identity) : nil
                let (changed, dropped) = publish(stagedTopKeys, in: &state, layout: layout)
                return (changed, dropped, earlierFailures)
            }
            reportDropped(dropped)
            if earlierFailures > 0 {
                report(
                    .writeRetriedAndSucceeded, .notice,
                    "\(path) was written after \(earlierFailures) failed \(earlierFailures == 1 ? "attempt" : "attempts"); no change was lost.",
                    details: ["attempts": String(earlierFailures + 1)])
            }
            return changed
        } catch {
            let leftInPlace = (error.underlyingError as? SystemCallError)?.leftNewContentsInPlace == true
            for (topKey, member) in replacedMembers { document[topKey] = member }
            let (changed, dropped) = state.withLock { state in
                state.disk = document
                for (key, change) in batch where state.pending[key] == nil {
                    state.pending[key] = change
                }
                if leftInPlace {
                    for (offset, (key, value)) in staged.enumerated() {
                        let sequence = firstStagedSequence &+ UInt64(offset)
                        if let newer = state.pending[key], newer.sequence > sequence { continue }
                        state.pending[key] = PendingChange(value: value, sequence: sequence)
                    }
                }
                // A replaced lock file is no failure: the write starts over under the new lock.
                if !error.lockFileWasReplaced { state.lastError = error }
                return leftInPlace ? publish(stagedTopKeys, in: &state, layout: layout) : ([], [])
            }
            reportDropped(dropped)
            announce(changed)
            throw error
        }
    }

    /// Makes what readers see of `topKeys` what the file and the pending
    /// changes say, and drops the cached values of the keys that changed, in
    /// the same critical section, so that they change together.
    private func publish(_ topKeys: Set<String>, in state: inout JSONFileState, layout: JSONFileStore.KeyLayout) -> (changed: [String], dropped: [StorageError])
    {
        guard !topKeys.isEmpty else { return ([], []) }
        let (changed, dropped) = state.rebuildVisible(of: topKeys, layout: layout)
        discardCachedValues(changed)
        return (changed, dropped)
    }

    /// The largest file whose text is kept between writes (256 MiB). Kept,
    /// the text and where each member sits in it take the file's size again
    /// plus 32 bytes a key (about 63 MB for a 31 MB, 1,000,000-key file), and
    /// a write after one change copies the text instead of formatting every
    /// value again: measured on that file, 844 ms became 32 ms, against 20 ms
    /// for the file-system part alone. Past this size, memory matters more.
    static let largestTextKeptForTheNextWrite = 256 << 20

    private func writeFile(_ bytes: [UInt8], releasingLockEarly: Bool) throws(StorageError) -> FileStatus {
        do {
            return try AtomicFileReplacement(fileSystem: fileSystem).replaceContents(
                of: path, with: bytes, checked: heldLock.withLock { $0?.checkedPath }, guardingRename: renameHoldingCurrentLock,
                afterRename: { if releasingLockEarly { releaseLockFileAfterWriting() } })
        } catch {
            throw StorageError(
                code: .storeFailure,
                reason: "could not write the settings file at \(path): \(error). The file is unchanged and the changes are still pending.",
                underlyingError: error
            )
        }
    }
}
