#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Stowage
import StowageLocking
import StowageTestSupport
@testable import StowageJSONFile

/// The real file system, except that one chosen step fails with a chosen
/// `errno`; it also records the folders it `fsync`s and signals each rename.
struct FaultInjectingFileSystem: FileSystem {
    enum Step: String, CaseIterable, Sendable {
        case createTemporaryFile, write, shortWrite, fsync, rename, directoryFsync, read, openLockFile, lock
        /// Not a failure: the lock file is deleted just after the `flock` on it is taken.
        case deleteLockFileOnceLocked
    }

    let failing: Step
    let code: Int32
    private let real = POSIXFileSystem()
    /// How many more times the step fails; after that it works.
    private let failuresLeft: Locked<Int>
    /// Every folder `fsync`ed, in order.
    let synchronizedDirectories = Collected<String>()
    /// The folders among them that had to be opened for it, rather than `fsync`ed on a descriptor the store held.
    let directoriesOpenedToSynchronize = Collected<String>()
    /// Every `stat` and `lstat` of a path, in order.
    let statusQueries = Collected<(path: String, followingSymlinks: Bool)>()
    /// Every folder opened to be locked and synchronized (``openDirectory(at:)``), with its descriptor, in order.
    let openedDirectories = Collected<(path: String, descriptor: Int32)>()
    /// Every descriptor closed through this file system, in order.
    let closedDescriptors = Collected<Int32>()
    /// Every path asked about with `access(W_OK)`, in order.
    let writabilityChecks = Collected<String>()
    /// Paths `access(W_OK)` says no to, as it would to a user without permission
    /// (the tests may run as the superuser, whom it never refuses).
    let unwritablePaths = Locked<Set<String>>([])
    /// Signalled after each rename that succeeded, so a test can wait for a write to land.
    let completedRenames = DispatchSemaphore(value: 0)
    /// Runs as each file (not folder) is `fsync`ed, before it is: a test's
    /// window into the middle of a write.
    let whileSynchronizingFile = Locked<(@Sendable (String) -> Void)?>(nil)
    /// Runs as each folder is `fsync`ed, before it is.
    let whileSynchronizingDirectory = Locked<(@Sendable (String) -> Void)?>(nil)

    init(failing: Step, code: Int32, times: Int = .max) {
        self.failing = failing
        self.code = code
        failuresLeft = Locked(times)
    }

    /// The real file system, with the recording.
    static func healthy() -> FaultInjectingFileSystem {
        FaultInjectingFileSystem(failing: .read, code: EIO, times: 0)
    }

    /// Waits for the next rename that succeeds, at most `seconds`.
    func waitForRename(seconds: Int = 20) -> Bool {
        completedRenames.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    private func fail(_ step: Step, _ path: String) throws(SystemCallError) {
        guard step == failing else { return }
        let fails = failuresLeft.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if fails { throw SystemCallError(operation: "injected \(step.rawValue)", path: path, code: code) }
    }

    func status(ofItemAt path: String, followingSymlinks: Bool) throws(SystemCallError) -> FileStatus? {
        statusQueries.append((path, followingSymlinks))
        return try real.status(ofItemAt: path, followingSymlinks: followingSymlinks)
    }

    func readFile(at path: String) throws(SystemCallError) -> (bytes: [UInt8], status: FileStatus) {
        try fail(.read, path)
        return try real.readFile(at: path)
    }

    func createNewFile(at path: String, permissions: mode_t) throws(SystemCallError) -> Int32 {
        try fail(.createTemporaryFile, path)
        return try real.createNewFile(at: path, permissions: permissions)
    }

    func settleNewFile(_ descriptor: Int32, path: String, permissions: mode_t, owner: FileOwner?) throws(SystemCallError) -> FileStatus {
        try real.settleNewFile(descriptor, path: path, permissions: permissions, owner: owner)
    }

    func status(of descriptor: Int32, path: String) throws(SystemCallError) -> FileStatus {
        try real.status(of: descriptor, path: path)
    }

    func isWritable(_ path: String) -> Bool {
        writabilityChecks.append(path)
        return !unwritablePaths.withLock { $0.contains(path) } && real.isWritable(path)
    }
    func contentsOfDirectory(at path: String) -> [String] { real.contentsOfDirectory(at: path) }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SystemCallError) -> Int {
        try fail(.write, path)
        if failing == .shortWrite {
            // Half gets written, as when the disk fills up, and the next write finds it full.
            guard bytes.count > 1, lseek(descriptor, 0, SEEK_CUR) == 0 else {
                throw SystemCallError(operation: "injected write", path: path, code: code)
            }
            return try real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]), path: path)
        }
        return try real.write(descriptor, bytes, path: path)
    }

    func synchronize(_ descriptor: Int32, path: String) throws(SystemCallError) {
        try fail(.fsync, path)
        whileSynchronizingFile.withLock { $0 }?(path)
        try real.synchronize(descriptor, path: path)
    }

    func close(_ descriptor: Int32) {
        closedDescriptors.append(descriptor)
        real.close(descriptor)
    }

    func rename(_ source: String, to destination: String) throws(SystemCallError) {
        try fail(.rename, destination)
        try real.rename(source, to: destination)
        completedRenames.signal()
    }

    func synchronizeDirectory(at path: String) throws(SystemCallError) {
        try fail(.directoryFsync, path)
        whileSynchronizingDirectory.withLock { $0 }?(path)
        try real.synchronizeDirectory(at: path)
        synchronizedDirectories.append(path)
        directoriesOpenedToSynchronize.append(path)
    }

    func synchronizeDirectory(_ descriptor: Int32, path: String) throws(SystemCallError) {
        try fail(.directoryFsync, path)
        whileSynchronizingDirectory.withLock { $0 }?(path)
        try real.synchronizeDirectory(descriptor, path: path)
        synchronizedDirectories.append(path)
    }

    func removeFile(at path: String) { real.removeFile(at: path) }

    func createDirectory(at path: String, permissions: mode_t) throws(SystemCallError) {
        try real.createDirectory(at: path, permissions: permissions)
    }

    func destinationOfSymbolicLink(at path: String) -> String? { real.destinationOfSymbolicLink(at: path) }
    func openLockFile(at path: String) throws(SystemCallError) -> Int32 {
        try fail(.openLockFile, path)
        return try real.openLockFile(at: path)
    }

    func lockExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) {
        try fail(.lock, path)
        try real.lockExclusively(descriptor, path: path)
        deleteIfChosen(path)
    }

    func tryLockingExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) -> Bool {
        let locked = try real.tryLockingExclusively(descriptor, path: path)
        if locked { deleteIfChosen(path) }
        return locked
    }

    /// Deletes the lock file at `path` while its count of deletions lasts, for ``Step/deleteLockFileOnceLocked``.
    private func deleteIfChosen(_ path: String) {
        do { try fail(.deleteLockFileOnceLocked, path) } catch { real.removeFile(at: path) }
    }
    func unlock(_ descriptor: Int32) { real.unlock(descriptor) }
    func openDirectory(at path: String) throws(SystemCallError) -> Int32 {
        let descriptor = try real.openDirectory(at: path)
        openedDirectories.append((path, descriptor))
        return descriptor
    }
    func lockDirectory(_ descriptor: Int32, path: String) throws(SystemCallError) { try real.lockDirectory(descriptor, path: path) }
    func unlockDirectory(_ descriptor: Int32) { real.unlockDirectory(descriptor) }
}
