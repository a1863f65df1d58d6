#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh private directory (mode 0700) for one test's files, removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() {
        var template = Array("/tmp/stowage-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/stowage-test-\(UInt64.random(in: 0...UInt64.max))"
        if made == nil { mkdir(path, 0o700) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    public func url(_ name: String) -> URL {
        URL(filePath: file(name))
    }

    /// Writes `text` to the file `name`, as a person or another program would, and gives its URL.
    @discardableResult
    public func write(_ text: String, to name: String) -> URL {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(text.utf8))
        return url(name)
    }

    /// The text of the file `name`, or `nil` when there is none.
    public func text(of name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in the directory, sorted.
    public func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}
