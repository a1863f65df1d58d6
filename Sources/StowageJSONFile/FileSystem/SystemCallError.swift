#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with what was being done and to which path.
package struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, in words: "fsync of the temporary file".
    package var operation: String
    package var path: String
    /// The `errno` value.
    package var code: Int32
    /// Whether the new contents were already in the file's place when the
    /// call failed (only the folder's `fsync` comes later): the write is not
    /// durable, but readers of the file see it.
    package var leftNewContentsInPlace = false
    /// Whether the write stopped because the lock file was deleted or
    /// replaced while this process held the lock on it: another writer may
    /// hold the lock on the new file, so the write starts over under that lock.
    package var lockFileWasReplaced = false

    package init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The current `errno`, attributed to `operation` on `path`.
    static func lastError(_ operation: String, path: String) -> SystemCallError {
        SystemCallError(operation: operation, path: path, code: errno)
    }

    package var description: String {
        "\(operation) of \(path) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
