#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's contents so that a crash at any moment leaves either the
/// old contents or the new ones, never a mix, an empty file or a lost file.
///
/// The steps: create a temporary file beside the target with an unguessable
/// name (`O_CREAT | O_EXCL | O_NOFOLLOW`, so a link planted there is never
/// followed), write everything, give it the target's permissions (0600 for a
/// new file) and owner, `fsync`, `rename` over the target, `fsync` the directory. When
/// the target is a symbolic link, the file it points to is replaced and the
/// link stays. Any failure before the rename removes the temporary file and
/// leaves the target untouched. A failed `fsync` is never retried on the same
/// descriptor (after a failure the kernel may have dropped the dirty pages and
/// a second `fsync` would report a false success); the caller writes a fresh
/// temporary file instead.
struct AtomicFileReplacement {
    let fileSystem: any FileSystem

    /// A folder the rename's guard had open, handed on so that the `fsync`
    /// of the folder after the rename needs no `open` of its own.
    struct OpenFolder {
        let descriptor: Int32
        let path: String
        /// Kept open by whoever handed it on (the store keeps its lock file's
        /// folder open), so the replacement `fsync`s it without closing it.
        let isKept: Bool

        init(descriptor: Int32, path: String, isKept: Bool = false) {
            self.descriptor = descriptor
            self.path = path
            self.isKept = isKept
        }
    }

    /// An `lstat` of the path to replace that the caller took moments ago,
    /// under the same lock: `status` is `nil` when nothing was there. When it
    /// is no symbolic link, the path is the target, and its mode and owner
    /// are the ones to keep, without an `lstat` of its own.
    struct CheckedPath: Sendable {
        let status: FileStatus?
    }

    /// The permissions a file gets when the store creates it.
    static var newFilePermissions: mode_t { 0o600 }

    /// Writes `bytes` as the new contents of `path`, creating its folder
    /// (and missing parents, 0700) when there is none.
    /// - Parameter checked: what an `lstat` of `path` said just before, if one was taken.
    /// - Parameter guardingRename: runs the `rename` that puts the new file in
    ///   the old one's place, and may check something first, atomically with
    ///   it; when it throws before renaming, the target is left untouched. It
    ///   may return a folder it holds open (and no longer locks); the
    ///   replacement `fsync`s it if it is the target's, and closes it unless it is kept.
    /// - Parameter afterRename: runs once the new file is in place, before the
    ///   `fsync` of the folder.
    /// - Returns: the status of the file written, now at the target.
    @discardableResult
    func replaceContents(
        of path: String, with bytes: [UInt8], checked: CheckedPath? = nil,
        guardingRename: (_ rename: () throws(SystemCallError) -> Void) throws(SystemCallError) -> OpenFolder? = {
            rename throws(SystemCallError) in
            try rename()
            return nil
        },
        afterRename: () -> Void = {}
    ) throws(SystemCallError) -> FileStatus {
        let (target, existing): (String, FileStatus?)
        if let checked, checked.status?.kind != .symbolicLink {
            (target, existing) = (path, checked.status)
        } else {
            (target, existing) = try FilePath.resolvingSymbolicLinksWithStatus(path, in: fileSystem)
        }
        if let existing, existing.kind == .directory {
            throw SystemCallError(operation: "replacing the file", path: target, code: EISDIR)
        }
        let directory = FilePath.directory(of: target)
        let permissions = existing?.permissions ?? Self.newFilePermissions
        let owner = existing?.fileOwner
        let temporary = directory + "/." + FilePath.lastComponent(of: target) + ".tmp-" + Self.unpredictableSuffix()

        let descriptor: Int32
        do {
            descriptor = try fileSystem.createNewFile(at: temporary, permissions: permissions)
        } catch  where error.code == ENOENT {
            // The folder is missing. It is made only now: looking for it before every write was a `stat` each.
            try FilePath.createDirectories(directory, permissions: 0o700, in: fileSystem)
            descriptor = try fileSystem.createNewFile(at: temporary, permissions: permissions)
        }
        let written: FileStatus
        do {
            try writeAll(bytes, to: descriptor, path: temporary)
            // After the write: one `fstat` both decides the mode and owner and gives the status of what was written.
            written = try fileSystem.settleNewFile(descriptor, path: temporary, permissions: permissions, owner: owner)
            try fileSystem.synchronize(descriptor, path: temporary)
        } catch {
            fileSystem.close(descriptor)
            fileSystem.removeFile(at: temporary)
            throw error
        }
        fileSystem.close(descriptor)
        let folder: OpenFolder?
        do {
            folder = try guardingRename { () throws(SystemCallError) in try fileSystem.rename(temporary, to: target) }
        } catch {
            fileSystem.removeFile(at: temporary)
            throw error
        }
        afterRename()
        do {
            try synchronizeDirectory(directory, reusing: folder)
        } catch {
            var failure = error
            failure.leftNewContentsInPlace = true
            throw failure
        }
        return written
    }

    /// `fsync`s `directory`, on `folder`'s descriptor when that is the same
    /// folder, and closes `folder` unless it is kept.
    func synchronizeDirectory(_ directory: String, reusing folder: OpenFolder?) throws(SystemCallError) {
        guard let folder else { return try fileSystem.synchronizeDirectory(at: directory) }
        defer { if !folder.isKept { fileSystem.close(folder.descriptor) } }
        if folder.path == directory {
            try fileSystem.synchronizeDirectory(folder.descriptor, path: directory)
        } else {
            try fileSystem.synchronizeDirectory(at: directory)
        }
    }

    /// Writes every byte, continuing after short writes; a write of nothing is an error.
    private func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            // `Array.withUnsafeBytes` rethrows untyped, so the write's error travels out as a Result.
            let written = try bytes.withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in
                    try fileSystem.write(descriptor, UnsafeRawBufferPointer(rebasing: buffer[offset...]), path: path)
                }
            }.get()
            guard written > 0 else { throw SystemCallError(operation: "write", path: path, code: EIO) }
            offset += written
        }
    }

    /// 128 random bits in hexadecimal, so no other program can predict the name.
    static func unpredictableSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
