#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#elseif canImport(Darwin)
package import Darwin
#endif

/// The real file system, through POSIX calls that retry on `EINTR`.
package struct POSIXFileSystem: FileSystem {
    package init() {}

    package func status(ofItemAt path: String, followingSymlinks: Bool) throws(SystemCallError) -> FileStatus? {
        var info = stat()
        let result = followingSymlinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .lastError("stat", path: path)
        }
        return FileStatus(info)
    }

    package func readFile(at path: String) throws(SystemCallError) -> (bytes: [UInt8], status: FileStatus) {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .lastError("open for reading", path: path) }
        defer { _ = systemClose(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .lastError("stat", path: path) }
        let status = FileStatus(info)
        guard status.kind == .regularFile else {
            throw SystemCallError(operation: "reading", path: path, code: status.kind == .directory ? EISDIR : EINVAL)
        }
        // Read to the end rather than trusting the size: the file may grow while it is read.
        // A short read that brings the bytes to the size is the end, though, without one more
        // `read` to see it return nothing: if the file grew meanwhile, its new size tells the next check.
        // Each chunk is read into memory it leaves uninitialised past what `read` returned:
        // zeroing a 64 KB chunk for every reread of a small file showed in profiles.
        let chunkSize = max(4 * 1024, min(Int(info.st_size) + 1, 16 * 1024 * 1024))
        var bytes = [UInt8]()
        while true {
            var failure: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, initialized in
                let count = retryingOnInterrupt { read(descriptor, buffer.baseAddress, buffer.count) }
                if count < 0 { failure = errno }
                initialized = max(count, 0)
            }
            guard failure == 0 else { throw SystemCallError(operation: "read", path: path, code: failure) }
            if chunk.isEmpty { break }
            if bytes.isEmpty {
                // Usually the whole file; past a chunk, room for all of it, once.
                bytes = chunk
                if chunk.count == chunkSize { bytes.reserveCapacity(Int(info.st_size) + 1) }
            } else {
                bytes.append(contentsOf: chunk)
            }
            if chunk.count < chunkSize, bytes.count == Int(info.st_size) { break }
        }
        return (bytes, status)
    }

    package func createNewFile(at path: String, permissions: mode_t) throws(SystemCallError) -> Int32 {
        let descriptor = retryingOnInterrupt {
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        }
        guard descriptor >= 0 else { throw .lastError("creating the temporary file", path: path) }
        return descriptor
    }

    package func settleNewFile(_ descriptor: Int32, path: String, permissions: mode_t, owner: FileOwner?) throws(SystemCallError) -> FileStatus {
        var status = try self.status(of: descriptor, path: path)
        // The umask may have narrowed the mode given to open; set it exactly,
        // and the owner, but only where they differ: a `fchmod` or `fchown`
        // tells every process watching the folder (an inotify event each),
        // and most writes need neither.
        if status.permissions != permissions {
            guard fchmod(descriptor, permissions) == 0 else { throw .lastError("setting permissions", path: path) }
            status.permissions = permissions
        }
        // Best effort: only the superuser may give a file away.
        if let owner, status.fileOwner != owner, fchown(descriptor, owner.user, owner.group) == 0 {
            status.owner = owner.user
            status.group = owner.group
        }
        return status
    }

    package func status(of descriptor: Int32, path: String) throws(SystemCallError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .lastError("stat", path: path) }
        return FileStatus(info)
    }

    package func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    package func contentsOfDirectory(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names = [String]()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SystemCallError) -> Int {
        let count = retryingOnInterrupt { systemWrite(descriptor, bytes.baseAddress, bytes.count) }
        guard count >= 0 else { throw .lastError("write", path: path) }
        return count
    }

    package func synchronize(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else { throw .lastError("fsync", path: path) }
    }

    package func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    package func rename(_ source: String, to destination: String) throws(SystemCallError) {
        guard systemRename(source, destination) == 0 else { throw .lastError("rename over the file", path: destination) }
    }

    package func synchronizeDirectory(at path: String) throws(SystemCallError) {
        let descriptor = try openDirectory(at: path)
        defer { _ = systemClose(descriptor) }
        try synchronizeDirectory(descriptor, path: path)
    }

    package func synchronizeDirectory(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else { throw .lastError("fsync of the directory", path: path) }
    }

    package func removeFile(at path: String) {
        unlink(path)
    }

    package func createDirectory(at path: String, permissions: mode_t) throws(SystemCallError) {
        guard mkdir(path, permissions) == 0 else { throw .lastError("creating the directory", path: path) }
    }

    package func destinationOfSymbolicLink(at path: String) -> String? {
        // Uninitialised: every write asks this of its path, and zeroing 4 KB each time showed in profiles.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX)) { buffer -> String? in
            guard let start = buffer.baseAddress else { return nil }
            let count = readlink(path, start, buffer.count)
            guard count >= 0 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
        }
    }

    package func openLockFile(at path: String) throws(SystemCallError) -> Int32 {
        let descriptor = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw .lastError("opening the lock file", path: path) }
        return descriptor
    }

    package func lockExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard retryingOnInterrupt({ flock(descriptor, LOCK_EX) }) == 0 else { throw .lastError("flock", path: path) }
    }

    package func tryLockingExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) -> Bool {
        guard retryingOnInterrupt({ flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 else {
            if errno == EWOULDBLOCK { return false }
            throw .lastError("flock", path: path)
        }
        return true
    }

    package func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    package func openDirectory(at path: String) throws(SystemCallError) -> Int32 {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .lastError("opening the directory", path: path) }
        return descriptor
    }

    package func lockDirectory(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard retryingOnInterrupt({ flock(descriptor, LOCK_EX) }) == 0 else { throw .lastError("flock of the directory", path: path) }
    }

    package func unlockDirectory(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }
}

/// Repeats a system call that an interrupting signal cut short.
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

// The C functions whose names the methods above shadow.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, bytes, count) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
