#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory per test, removed when the test ends.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/stowage-json-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/stowage-json-\(UInt64.random(in: 0...UInt64.max))"
        if made == nil { mkdir(path, 0o700) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    func file(_ name: String = "settings.json") -> String {
        path + "/" + name
    }

    func url(_ name: String = "settings.json") -> URL {
        URL(filePath: file(name))
    }

    /// The names in the directory, sorted.
    func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// The bytes of the file at `path`, or `nil` when there is none.
func fileBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
}

/// Writes `text` to `path` directly, as a person or another program would.
func writeFile(_ path: String, _ text: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

/// The permission bits of the file at `path`.
func permissions(of path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}
