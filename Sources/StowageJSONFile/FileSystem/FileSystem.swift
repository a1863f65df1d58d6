#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#elseif canImport(Darwin)
package import Darwin
#endif

/// Every file-system call the JSON file store makes, behind one seam.
///
/// The store uses ``POSIXFileSystem``. Tests substitute an implementation that
/// fails a chosen step (open, write, a short write, fsync, rename, the
/// directory's fsync) to prove that no failure damages the file.
package protocol FileSystem: Sendable {
    /// `stat` (or `lstat` when not following links); `nil` when nothing is there.
    func status(ofItemAt path: String, followingSymlinks: Bool) throws(SystemCallError) -> FileStatus?

    /// The whole contents of the regular file at `path`, with the status of the file read.
    func readFile(at path: String) throws(SystemCallError) -> (bytes: [UInt8], status: FileStatus)

    /// Creates a new file that must not exist yet, without following a link
    /// planted at `path`, with `permissions` as the umask narrows them (never
    /// wider); ``settleNewFile(_:path:permissions:owner:)`` makes them exact.
    /// - Returns: a descriptor open for writing.
    func createNewFile(at path: String, permissions: mode_t) throws(SystemCallError) -> Int32

    /// Gives a file ``createNewFile(at:permissions:)`` made exactly
    /// `permissions`, whatever the umask, and `owner` (the owner and group of
    /// the file it will replace) as far as this process may, each only where
    /// it differs. Called once the file is written, so that one `fstat`
    /// decides both and gives the status of what was written.
    /// - Returns: the file's status, with what was set.
    func settleNewFile(_ descriptor: Int32, path: String, permissions: mode_t, owner: FileOwner?) throws(SystemCallError) -> FileStatus

    /// `fstat`: the status of an open file.
    func status(of descriptor: Int32, path: String) throws(SystemCallError) -> FileStatus

    /// Whether this process may write to `path` (`access(W_OK)`).
    func isWritable(_ path: String) -> Bool

    /// The names in the directory at `path`; empty when it can not be read.
    func contentsOfDirectory(at path: String) -> [String]

    /// One `write` call; it may write fewer bytes than given.
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SystemCallError) -> Int

    /// `fsync`.
    func synchronize(_ descriptor: Int32, path: String) throws(SystemCallError)

    func close(_ descriptor: Int32)

    /// `rename`, which replaces `destination` atomically.
    func rename(_ source: String, to destination: String) throws(SystemCallError)

    /// Opens the directory and `fsync`s it, so a rename in it is durable.
    func synchronizeDirectory(at path: String) throws(SystemCallError)

    /// `fsync` of a directory this process has open already (`path` is for errors).
    func synchronizeDirectory(_ descriptor: Int32, path: String) throws(SystemCallError)

    /// `unlink`; best effort, for cleaning up.
    func removeFile(at path: String)

    /// `mkdir` of one directory.
    func createDirectory(at path: String, permissions: mode_t) throws(SystemCallError)

    /// What the symbolic link at `path` points to, or `nil` if it is not a link.
    func destinationOfSymbolicLink(at path: String) -> String?

    /// Opens (creating it if needed) the file whose `flock` coordinates writers.
    func openLockFile(at path: String) throws(SystemCallError) -> Int32

    /// Waits for an exclusive `flock` on `descriptor`.
    func lockExclusively(_ descriptor: Int32, path: String) throws(SystemCallError)

    /// Takes an exclusive `flock` on `descriptor` if no one holds it.
    /// - Returns: whether it was taken.
    func tryLockingExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) -> Bool

    func unlock(_ descriptor: Int32)

    /// Opens the directory at `path` for reading, so it can be `flock`ed and `fsync`ed.
    func openDirectory(at path: String) throws(SystemCallError) -> Int32

    /// Waits for an exclusive `flock` on the open directory `descriptor` (`path` is for errors).
    func lockDirectory(_ descriptor: Int32, path: String) throws(SystemCallError)

    /// Releases a directory's `flock`; the descriptor stays open.
    func unlockDirectory(_ descriptor: Int32)
}

/// The owner and group a file is given.
package struct FileOwner: Sendable, Equatable {
    package var user: uid_t
    package var group: gid_t
}
