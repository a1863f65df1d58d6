#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Stowage
import StowageJSON

extension JSONFileBacking {
    /// Writes every pending change, after rereading the file if another
    /// process changed it, so that both processes' keys survive. When the
    /// write fails, a background write tries again (see ``scheduleRetry()``).
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
            scheduleRetry()
            throw error
        }
    }

    /// Writes the file from `disk` plus the pending changes; the caller holds
    /// the file lock and has just reread the file. On failure the changes stay
    /// pending, so the next write, `flush()` or the exit writes them anew into
    /// a fresh temporary file.
    func writeBatchUnderLock() throws(StorageError) {
        let layout = options.keyLayout
        if let reason = state.withLock({ $0.readOnlyReason }) {
            // Never write over a file the store could not make sense of; the changes stay pending.
            throw JSONFileBacking.readOnlyError(key: nil, reason: reason)
        }
        let (batch, disk, identity, lastWritten) = state.withLock { state in
            defer { state.pending = [:] }
            return (state.orderedPending, state.disk, state.diskIdentity, state.lastWritten)
        }
        guard !batch.isEmpty else { return }
        var document = disk
        for (key, change) in batch {
            // `reload` dropped every change that conflicts with this disk state.
            try? layout.apply(change.value, forKey: key, to: &document)
        }
        do {
            let serialized: JSONSerializedObject
            if let lastWritten, lastWritten.identity == identity {
                let changedKeys = Set(batch.map { layout.topLevelKey(of: $0.key) })
                serialized = try serializer.serializeObject(document, changing: changedKeys, since: lastWritten.object)
            } else {
                serialized = try serializer.serializeObject(document, expectedByteCount: Int(identity?.size ?? 0) + 64)
            }
            let written = try writeFile(serialized.bytes)
            state.withLock { state in
                state.failedWrites = 0
                state.disk = document
                state.diskIdentity = written.identity
                // Keeping the text doubles the memory a file takes; past this size, write from scratch.
                state.lastWritten = serialized.bytes.count <= Self.largestTextKeptForTheNextWrite ? (serialized, written.identity) : nil
            }
        } catch {
            state.withLock { state in
                for (key, change) in batch where state.pending[key] == nil {
                    state.pending[key] = change
                }
                // A replaced lock file is no failure: the write starts over under the new lock.
                if !error.lockFileWasReplaced { state.lastError = error }
            }
            throw error
        }
    }

    /// Writes a compare-and-swap or a transaction, with the other pending
    /// changes; the caller holds the file lock.
    ///
    /// If the write fails before the new file takes the old one's place, the
    /// change is taken back, and the caller is told it was not made. Left
    /// pending, it would be written later over whatever other processes wrote
    /// meanwhile (their increments of a counter lost), though the caller, a
    /// `modify` that tries again say, was told it failed. Plain writes made
    /// before stay pending, as after any failed write. When only the folder's
    /// `fsync` failed, the file already holds the change, so it stays.
    func writeAtomicChangeUnderLock(_ recorded: RecordedChanges) throws(StorageError) {
        do {
            try writeBatchUnderLock()
        } catch {
            if (error.underlyingError as? SystemCallError)?.leftNewContentsInPlace != true {
                let layout = options.keyLayout
                reportDropped(state.withLock { state in
                    let (changed, dropped) = state.takeBack(recorded, layout: layout)
                    discardCachedValues(changed)
                    return dropped
                })
            }
            throw error
        }
    }

    /// The largest file whose text is kept between writes (16 MiB).
    static let largestTextKeptForTheNextWrite = 16 << 20

    private func writeFile(_ bytes: [UInt8]) throws(StorageError) -> FileStatus {
        do {
            let target = FilePath.resolvingSymbolicLinks(path, in: fileSystem)
            try FilePath.createDirectories(FilePath.directory(of: target), permissions: 0o700, in: fileSystem)
            return try AtomicFileReplacement(fileSystem: fileSystem).replaceContents(of: path, with: bytes, guardingRename: renameHoldingCurrentLock)
        } catch {
            throw StorageError(
                code: .storeFailure,
                reason: "could not write the settings file at \(path): \(error). The file is unchanged and the changes are still pending.",
                underlyingError: error
            )
        }
    }
}
