#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Reads files with plain system calls, the way a tool outside the store
/// would, and parses them with Foundation's parser, which shares no code with
/// the store's.
enum RawFile {
    /// The whole file, or `nil` when it does not exist or can not be read.
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The top-level object as Foundation reads it.
    /// - Throws: when the bytes are not JSON, or not an object.
    static func foundationObject(_ bytes: [UInt8]) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        guard let dictionary = object as? [String: Any] else { throw NotAnObject() }
        return dictionary
    }

    struct NotAnObject: Error, CustomStringConvertible {
        var description: String { "the top level is not a JSON object" }
    }

    /// An integer member as Foundation hands it over (an `NSNumber` on Linux).
    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let value as Int: value
        case let value as NSNumber: value.intValue
        default: nil
        }
    }
}
