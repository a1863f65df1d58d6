#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fresh directory for `.env` files, removed when the value goes away.
final class TemporaryFiles: Sendable {
    let url: URL

    init() {
        url = URL(filePath: "/tmp/stowage-env-\(UInt64.random(in: 0...UInt64.max))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` to a file named `name` and gives its URL.
    @discardableResult
    func write(_ text: String, to name: String = ".env") -> URL {
        let file = url.appending(path: name)
        _ = FileManager.default.createFile(atPath: file.path(percentEncoded: false), contents: Data(text.utf8))
        return file
    }

    func file(_ name: String = ".env") -> URL {
        url.appending(path: name)
    }
}
