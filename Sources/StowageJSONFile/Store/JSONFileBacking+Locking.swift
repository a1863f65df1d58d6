#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Stowage
import StowageLocking

extension JSONFileBacking {
    /// How long, and how many times, a write keeps taking the lock again
    /// while the lock file turns out deleted or replaced at every attempt,
    /// when no ``JSONFileStore/Options/lockTimeout`` bounds the wait. A count
    /// alone was the bound before: four busy writers and a clean-up tool
    /// deleting the file every millisecond used 100 attempts up in well under
    /// a second, and a write failed although every writer was making progress.
    /// A time alone would give up after one unlucky attempt that followed a
    /// long wait for a lock another process held.
    static let replacedLockFilePatience: (attempts: Int, time: Duration) = (100, .seconds(30))

    /// When a write that keeps finding its lock file replaced gives up: at
    /// the lock timeout's deadline when there is one (the whole wait for the
    /// lock counts, retries included), else after both the attempts and the
    /// time of ``replacedLockFilePatience``.
    struct LockDeadline {
        let clock = ContinuousClock()
        let start: ContinuousClock.Instant
        let timeout: Duration?

        init(timeout: Duration?) {
            start = clock.now
            self.timeout = timeout
        }

        func hasPassed(after attempts: Int) -> Bool {
            if let timeout { return clock.now >= start.advanced(by: timeout) }
            let patience = JSONFileBacking.replacedLockFilePatience
            return attempts >= patience.attempts && clock.now >= start.advanced(by: patience.time)
        }
        var elapsedMilliseconds: Int64 { (clock.now - start).wholeMilliseconds }
    }

    /// Runs `body` holding this process's file gate and the cross-process `flock`.
    ///
    /// The `flock` is on the lock file the path names at the moment it is
    /// taken: a lock on a file someone deleted would exclude nobody, since the
    /// next writer creates and locks a new one. If the lock file is deleted or
    /// replaced while `body` runs, a write in `body` stops before it replaces
    /// the settings file (see ``renameHoldingCurrentLock(_:)``) and `body`
    /// runs again under the lock on the new file.
    func withFileLock<Result>(_ body: () throws(StorageError) -> Result) throws(StorageError) -> Result {
        let thread = currentThreadIdentifier()
        if gateOwner.withLock({ $0 }) == thread {
            throw StorageError(
                code: .storeFailure,
                reason: "a transaction on \(path) called back into its own store's flush, modify or transaction; use the transaction's own methods.")
        }
        defer { deliverDeferredReports() }
        return try fileGate.withLock { gate throws(StorageError) -> Result in
            gateOwner.withLock { $0 = thread }
            defer { gateOwner.withLock { $0 = 0 } }
            let deadline = LockDeadline(timeout: options.lockTimeout)
            var attempts = 0
            while true {
                attempts += 1
                do throws(StorageError) {
                    return try attempt(body, holding: &gate, deadline: deadline)
                } catch  where error.lockFileWasReplaced && !deadline.hasPassed(after: attempts) {
                    continue
                } catch  where error.lockFileWasReplaced {
                    let gaveUp = StorageError(
                        code: deadline.timeout == nil ? .storeFailure : .timedOut, key: error.key,
                        reason: "could not write \(path): its lock file \(lockPath) was deleted or replaced during each of \(attempts) attempts "
                            + "in \(deadline.elapsedMilliseconds) ms, "
                            + "so no attempt could be sure other writers were kept out. The changes are still pending.",
                        underlyingError: error)
                    state.withLock { $0.lastError = gaveUp }
                    throw gaveUp
                }
            }
        }
    }

    /// One attempt of ``withFileLock(_:)``: takes the `flock` of the current
    /// lock file, runs `body`, and lets the lock go whatever `body` does.
    private func attempt<Result>(
        _ body: () throws(StorageError) -> Result, holding gate: inout FileGate, deadline: LockDeadline
    ) throws(StorageError) -> Result {
        let lockFile: OpenLockFile
        do throws(StorageError) {
            lockFile = try lockCurrentLockFile(&gate, deadline: deadline)
        } catch {
            state.withLock { $0.lastError = error }
            throw error
        }
        heldLock.withLock { $0 = HeldLock(lockFile: lockFile) }
        defer {
            let isReleased = heldLock.withLock { held in
                defer { held = nil }
                return held?.isReleased == true
            }
            if !isReleased { fileSystem.unlock(lockFile.descriptor) }
        }
        return try body()
    }

    /// Runs `rename`, which replaces the settings file, holding the folder's
    /// `flock`, after checking that the lock file this process holds the lock
    /// on is still the one its path names; if it is not, throws, and the write
    /// starts over under the new lock.
    ///
    /// Returns the folder kept open with the lock file, unlocked, for the
    /// `fsync` that makes the rename durable
    /// (``AtomicFileReplacement/synchronizeDirectory(_:reusing:)``, which
    /// leaves it open): opening it again for that was two more system calls a
    /// write. Throws when no lock is held: there would be nothing to check.
    ///
    /// Why the folder's lock: a writer that locks a lock file checks it under
    /// the folder's lock too (``lockCurrentLockFile(_:)``). So if someone
    /// deletes the lock file while this process holds the lock on it, either
    /// this check sees that, or the writer that locks the new file checks it
    /// (and then reads the settings file) only after this rename. Without it,
    /// the other writer could read the file between this check and the
    /// rename, and one of the two writes would be lost. The folder's lock is
    /// held for an `lstat` and a `rename`, never while waiting for anything
    /// else, so it can not deadlock with the lock file's.
    func renameHoldingCurrentLock(_ rename: () throws(SystemCallError) -> Void) throws(SystemCallError) -> AtomicFileReplacement.OpenFolder? {
        guard let held = heldLock.withLock({ $0 }) else {
            throw SystemCallError(operation: "renaming without holding the lock", path: lockPath, code: ENOLCK)
        }
        let folder = try lockFolder(of: held.lockFile)
        do throws(SystemCallError) {
            // Only a write's last step lets the lock go; nothing may be renamed after it.
            if held.isReleased { throw SystemCallError(operation: "renaming after the lock was let go", path: lockPath, code: ENOLCK) }
            if !lockFileIsCurrent(held.lockFile) {
                var error = SystemCallError(
                    operation: "checking that the lock file is still in place before replacing the settings file", path: lockPath, code: ESTALE)
                error.lockFileWasReplaced = true
                throw error
            }
            try rename()
        } catch {
            folder.map(fileSystem.unlockDirectory)
            throw error
        }
        heldLock.withLock { $0?.checkedPath = nil }
        guard let folder else { return nil }
        // Unlocked before the `fsync`: writers of other files in the folder check their lock files under this lock.
        fileSystem.unlockDirectory(folder)
        return AtomicFileReplacement.OpenFolder(descriptor: folder, path: FilePath.directory(of: lockPath), isKept: true)
    }

    /// Lets the `flock` go once a write has renamed its file into place, before
    /// the `fsync` of the folder that makes the rename durable: the next
    /// writer can read the file and write its own while this one waits for
    /// the disk, which was a quarter of the time writers held the lock.
    ///
    /// The `fsync` needs no lock. Whatever rename the folder holds when it
    /// runs (this one, or a later writer's, whose file was synchronized before
    /// its rename and holds this write's keys), this write is durable once it
    /// returns. A write is the last thing a writer does under the lock
    /// (``writePendingChanges()``, a transaction); this process's file gate is
    /// still held, and a rename after this throws. A compare-and-swap keeps
    /// the lock (see ``writeStagedChangeUnderLock(_:isCompareAndSwap:)``).
    func releaseLockFileAfterWriting() {
        let lockFile = heldLock.withLock { held -> OpenLockFile? in
            guard let current = held, !current.isReleased else { return nil }
            held?.isReleased = true
            return current.lockFile
        }
        if let lockFile { fileSystem.unlock(lockFile.descriptor) }
    }

    /// The folder holding `lockFile`, `flock`ed; `nil` when it could not be
    /// opened for reading (mode 0300, say): the check then goes without it,
    /// as good as it can be. When the folder is gone (deleted with everything
    /// in it, say), so is the lock file: its check by path finds that, and
    /// the next attempt makes the folder and the lock file again.
    private func lockFolder(of lockFile: OpenLockFile) throws(SystemCallError) -> Int32? {
        guard let folder = lockFile.folder else { return nil }
        try fileSystem.lockDirectory(folder, path: FilePath.directory(of: lockPath))
        return folder
    }

    /// Closes the lock file and the folder kept open with it.
    func close(_ lockFile: OpenLockFile) {
        fileSystem.close(lockFile.descriptor)
        lockFile.folder.map(fileSystem.close)
    }

    /// Takes the `flock` on the file `lockPath` names now, opening it again
    /// if the descriptor kept from earlier is of a deleted or replaced file.
    private func lockCurrentLockFile(_ gate: inout FileGate, deadline: LockDeadline) throws(StorageError) -> OpenLockFile {
        var attempts = 0
        while true {
            attempts += 1
            let lockFile = try openLockFile(&gate)
            try lock(lockFile.descriptor, deadline: deadline)
            let isCurrent: Bool
            do throws(SystemCallError) {
                let folder = try lockFolder(of: lockFile)
                isCurrent = lockFileIsCurrent(lockFile)
                folder.map(fileSystem.unlockDirectory)
            } catch {
                fileSystem.unlock(lockFile.descriptor)
                throw StorageError(code: .storeFailure, reason: "could not lock the folder of \(lockPath): \(error).", underlyingError: error)
            }
            if isCurrent { return lockFile }
            fileSystem.unlock(lockFile.descriptor)
            close(lockFile)
            gate.lockFile = nil
            if deadline.hasPassed(after: attempts) {
                throw StorageError(
                    code: deadline.timeout == nil ? .storeFailure : .timedOut,
                    reason: "could not lock \(lockPath): it was deleted or replaced each of the \(attempts) times this process locked it "
                        + "in \(deadline.elapsedMilliseconds) ms; nothing was written.")
            }
        }
    }

    /// Waits for the `flock` on `descriptor`, until the lock timeout's
    /// deadline when there is one: retries after a replaced lock file share it.
    private func lock(_ descriptor: Int32, deadline lockDeadline: LockDeadline) throws(StorageError) {
        func failure(_ error: SystemCallError) -> StorageError {
            StorageError(code: .storeFailure, reason: "could not lock \(lockPath): \(error).", underlyingError: error)
        }
        guard let timeout = options.lockTimeout else {
            do { try fileSystem.lockExclusively(descriptor, path: lockPath) } catch { throw failure(error) }
            return
        }
        let clock = lockDeadline.clock
        let deadline = lockDeadline.start.advanced(by: timeout)
        while true {
            do {
                if try fileSystem.tryLockingExclusively(descriptor, path: lockPath) { return }
            } catch {
                throw failure(error)
            }
            guard clock.now < deadline else {
                throw StorageError(
                    code: .timedOut,
                    reason: "\(path) is locked by another process for more than \(timeout) (\(lockPath)); nothing was written."
                )
            }
            usleep(2_000)
        }
    }

    /// The lock file, opened (and created) on first use and kept.
    private func openLockFile(_ gate: inout FileGate) throws(StorageError) -> OpenLockFile {
        if let lockFile = gate.lockFile { return lockFile }
        do throws(SystemCallError) {
            try FilePath.createDirectories(FilePath.directory(of: lockPath), permissions: 0o700, in: fileSystem)
            if try fileSystem.status(ofItemAt: lockPath, followingSymlinks: false)?.kind == .symbolicLink {
                throw SystemCallError(operation: "opening the lock file", path: lockPath, code: ELOOP)
            }
            // The folder first: the lock file opened after it is in it (unless
            // the folder is replaced in between, which the check by path sees).
            let folder: Int32?
            do {
                folder = try fileSystem.openDirectory(at: FilePath.directory(of: lockPath))
            } catch  where error.code == EACCES || error.code == EPERM {
                folder = nil
            }
            let descriptor: Int32
            let status: FileStatus
            do throws(SystemCallError) {
                descriptor = try fileSystem.openLockFile(at: lockPath)
                do {
                    status = try fileSystem.status(of: descriptor, path: lockPath)
                } catch {
                    fileSystem.close(descriptor)
                    throw error
                }
            } catch {
                folder.map(fileSystem.close)
                throw error
            }
            let lockFile = OpenLockFile(descriptor: descriptor, status: status, folder: folder)
            gate.lockFile = lockFile
            return lockFile
        } catch  where error.code == ELOOP {
            throw StorageError(
                code: .storeFailure,
                reason: "the lock file \(lockPath) is a symbolic link. The store does not follow it, since a planted link "
                    + "could make it create or lock another file, so nothing can be written. Remove the link; the next write creates the lock file.",
                underlyingError: error)
        } catch {
            throw StorageError(code: .storeFailure, reason: "could not open the lock file \(lockPath): \(error).", underlyingError: error)
        }
    }

    /// Whether `lockFile` is the file `lockPath` names now. Its own status
    /// is the one from when it was opened: an open file keeps its inode, and
    /// the inode's number can not go to another file while it is open.
    private func lockFileIsCurrent(_ lockFile: OpenLockFile) -> Bool {
        guard let named = try? fileSystem.status(ofItemAt: lockPath, followingSymlinks: false) else { return false }
        return lockFile.status.isSameFile(as: named)
    }
}

extension StorageError {
    /// Whether a write stopped because the lock file was replaced under it, and may start over.
    var lockFileWasReplaced: Bool {
        (underlyingError as? SystemCallError)?.lockFileWasReplaced == true
    }
}
