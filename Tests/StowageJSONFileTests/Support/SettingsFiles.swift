#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension TemporaryDirectory {
    /// The settings file most tests use.
    func file() -> String { file("settings.json") }

    func url() -> URL { url("settings.json") }
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
