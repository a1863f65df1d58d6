#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a `.env` file's bytes with `open` and `read`, not `Data(contentsOf:)`:
/// that refuses pipes (`--env-file <(…)` in a shell) and, on Linux, leaks a
/// 4 KiB buffer for every empty file it reads.
enum DotEnvFileReader {
    /// A failed system call, with its `errno`.
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
        /// Whether the file does not exist.
        var isMissingFile: Bool { code == ENOENT }
    }

    static func bytes(atPath path: String) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Failure(call: "open", code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .success(bytes) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(call: "read", code: errno))
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
