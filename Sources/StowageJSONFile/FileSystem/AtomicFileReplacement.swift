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
/// followed), with the target's permissions (0600 for a new file), write
/// everything, `fsync`, `rename` over the target, `fsync` the directory. When
/// the target is a symbolic link, the file it points to is replaced and the
/// link stays. Any failure before the rename removes the temporary file and
/// leaves the target untouched. A failed `fsync` is never retried on the same
/// descriptor (after a failure the kernel may have dropped the dirty pages and
/// a second `fsync` would report a false success); the caller writes a fresh
/// temporary file instead.
struct AtomicFileReplacement {
    let fileSystem: any FileSystem

    /// The permissions a file gets when the store creates it.
    static var newFilePermissions: mode_t { 0o600 }

    /// Writes `bytes` as the new contents of `path`.
    /// - Parameter guardingRename: runs the `rename` that puts the new file in
    ///   the old one's place, and may check something first, atomically with
    ///   it; when it throws before renaming, the target is left untouched.
    /// - Returns: the status of the file written, now at the target.
    @discardableResult
    func replaceContents(
        of path: String, with bytes: [UInt8],
        guardingRename: (_ rename: () throws(SystemCallError) -> Void) throws(SystemCallError) -> Void = { rename throws(SystemCallError) in try rename() }
    ) throws(SystemCallError) -> FileStatus {
        try replaceContents(ofResolved: FilePath.resolvingSymbolicLinks(path, in: fileSystem), with: bytes, guardingRename: guardingRename)
    }

    /// ``replaceContents(of:with:guardingRename:)`` for a `target` whose
    /// symbolic links the caller has followed already.
    @discardableResult
    func replaceContents(
        ofResolved target: String, with bytes: [UInt8],
        guardingRename: (_ rename: () throws(SystemCallError) -> Void) throws(SystemCallError) -> Void
    ) throws(SystemCallError) -> FileStatus {
        let directory = FilePath.directory(of: target)
        let existing = try fileSystem.status(ofItemAt: target, followingSymlinks: false)
        if let existing, existing.kind == .directory {
            throw SystemCallError(operation: "replacing the file", path: target, code: EISDIR)
        }
        let permissions = existing?.permissions ?? Self.newFilePermissions
        let temporary = directory + "/." + FilePath.lastComponent(of: target) + ".tmp-" + Self.unpredictableSuffix()

        let descriptor = try fileSystem.createNewFile(at: temporary, permissions: permissions)
        let written: FileStatus
        do {
            if let existing { fileSystem.setOwner(of: descriptor, owner: existing.owner, group: existing.group) }
            try writeAll(bytes, to: descriptor, path: temporary)
            try fileSystem.synchronize(descriptor, path: temporary)
            written = try fileSystem.status(of: descriptor, path: temporary)
        } catch {
            fileSystem.close(descriptor)
            fileSystem.removeFile(at: temporary)
            throw error
        }
        fileSystem.close(descriptor)
        do {
            try guardingRename { () throws(SystemCallError) in try fileSystem.rename(temporary, to: target) }
        } catch {
            fileSystem.removeFile(at: temporary)
            throw error
        }
        do {
            try fileSystem.synchronizeDirectory(at: directory)
        } catch {
            var failure = error
            failure.leftNewContentsInPlace = true
            throw failure
        }
        return written
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
