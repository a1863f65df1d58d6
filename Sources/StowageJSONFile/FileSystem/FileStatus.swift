#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#elseif canImport(Darwin)
package import Darwin
#endif

/// What `stat` says about a file, reduced to what the store needs.
package struct FileStatus: Sendable, Equatable {
    /// Device, inode, size and modification time: if any differs, the file changed.
    package struct Identity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modificationSeconds: Int64
        var modificationNanoseconds: Int64
    }

    package enum Kind: Sendable, Equatable {
        case regularFile, directory, symbolicLink, other
    }

    package var identity: Identity

    /// Whether both statuses are of the same file (device and inode), whatever its size or time.
    package func isSameFile(as other: FileStatus) -> Bool {
        identity.device == other.identity.device && identity.inode == other.identity.inode
    }
    package var kind: Kind
    /// The permission bits (`0o600`, say).
    package var permissions: mode_t
    package var owner: uid_t
    package var group: gid_t

    /// The owner and group, as a file that replaces this one is given them.
    package var fileOwner: FileOwner { FileOwner(user: owner, group: group) }

    /// Who owns the file, and its permission bits: what decides who may write it.
    package struct Access: Sendable, Equatable {
        var owner: FileOwner
        var permissions: mode_t
    }

    package var access: Access { Access(owner: fileOwner, permissions: permissions) }

    init(_ info: stat) {
        #if canImport(Darwin)
        let modification = info.st_mtimespec
        #else
        let modification = info.st_mtim
        #endif
        identity = Identity(
            device: UInt64(truncatingIfNeeded: info.st_dev),
            inode: UInt64(truncatingIfNeeded: info.st_ino),
            size: Int64(info.st_size),
            modificationSeconds: Int64(modification.tv_sec),
            modificationNanoseconds: Int64(modification.tv_nsec)
        )
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regularFile
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        permissions = info.st_mode & 0o7777
        owner = info.st_uid
        group = info.st_gid
    }
}
