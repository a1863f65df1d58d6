#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Path arithmetic on plain strings, so the store needs nothing beyond POSIX.
enum FilePath {
    /// `path`, made absolute against the current directory.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let current = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return current == "/" ? "/" + path : current + "/" + path
    }

    /// Everything before the last `/`: `/a/b/c.json` gives `/a/b`.
    ///
    /// Both searches go through the UTF-8 bytes: a search by `Character`
    /// was an eighth of the processor time of a `modify` of a small file.
    static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Everything after the last `/`.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The file `path` finally names once every symbolic link at its last
    /// component is followed; `path` itself when it is not a link. The file
    /// need not exist. A loop of links stops after 40 hops, as the kernel does.
    static func resolvingSymbolicLinks(_ path: String, in fileSystem: some FileSystem) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = fileSystem.destinationOfSymbolicLink(at: current) else { return current }
            current = destination.hasPrefix("/") ? destination : directory(of: current) + "/" + destination
        }
        return current
    }

    /// ``resolvingSymbolicLinks(_:in:)``, with the `lstat` of the file it ends
    /// at (`nil` when nothing is there), for a writer that needs both: it
    /// takes one `lstat` when `path` is no link, where a `readlink` and then
    /// an `lstat` took two.
    static func resolvingSymbolicLinksWithStatus(_ path: String, in fileSystem: some FileSystem) throws(SystemCallError) -> (path: String, status: FileStatus?)
    {
        var current = path
        for _ in 0..<40 {
            let status = try fileSystem.status(ofItemAt: current, followingSymlinks: false)
            guard status?.kind == .symbolicLink, let destination = fileSystem.destinationOfSymbolicLink(at: current) else {
                return (current, status)
            }
            current = destination.hasPrefix("/") ? destination : directory(of: current) + "/" + destination
        }
        return (current, try fileSystem.status(ofItemAt: current, followingSymlinks: false))
    }

    /// Creates `path` and its missing parents with `permissions`, and makes
    /// each new folder durable: a folder's entry lives in its parent, so the
    /// parent is `fsync`ed after each `mkdir`, or a power cut could lose the
    /// folder and the file written into it.
    static func createDirectories(_ path: String, permissions: mode_t, in fileSystem: some FileSystem) throws(SystemCallError) {
        if try fileSystem.status(ofItemAt: path, followingSymlinks: true) != nil { return }
        let parent = directory(of: path)
        if parent != path { try createDirectories(parent, permissions: permissions, in: fileSystem) }
        do {
            try fileSystem.createDirectory(at: path, permissions: permissions)
        } catch  where error.code == EEXIST {
            // Another process made it first, and makes it durable.
            return
        }
        try fileSystem.synchronizeDirectory(at: parent)
    }
}
