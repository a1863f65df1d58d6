// Group 16's worker: one of several processes that each add 1 to a counter in
// one settings file, COUNT times, through a `modify` (a compare-and-swap under
// the file's cross-process lock), or through the hand-written floor. The
// driver starts them together and times them from the first spawn to the last
// exit; all run the same binary, so starting a process costs every side the same.
//
//   ModifyWorker stowage FILE COUNT                  default options: change monitor on
//   ModifyWorker stowage-no-monitor FILE COUNT       changeDetection: .none
//   ModifyWorker stowage-transaction FILE COUNT      `transaction`, default options: the
//                                                    increment under the lock, no retries
//   ModifyWorker floor FILE COUNT                    flock, read, write a temporary file,
//                                                    fsync, rename, fsync the folder, unlock
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageJSONFile

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    print("usage: ModifyWorker stowage|stowage-no-monitor|stowage-transaction|floor FILE COUNT")
    exit(64)
}
let path = arguments[2]

switch arguments[1] {
case "stowage", "stowage-no-monitor":
    var options = JSONFileStore.Options()
    if arguments[1] == "stowage-no-monitor" { options.changeDetection = .none }
    let store = JSONFileStore(url: URL(filePath: path), options: options)
    let counter = store.reference(forKey: "counter", as: Int.self)
    for _ in 0..<count {
        try counter.modify { $0 = ($0 ?? 0) + 1 }
    }
case "stowage-transaction":
    // Its body runs under the file lock, once: a `modify` without compare-and-swap retries.
    let store = JSONFileStore(url: URL(filePath: path))
    for _ in 0..<count {
        try store.transaction { transaction in
            try transaction.set((try transaction.value(forKey: "counter", as: Int.self) ?? 0) + 1, forKey: "counter")
        }
    }
case "floor":
    for _ in 0..<count { try FloorIncrement.run(path) }
default:
    print("unknown mode \(arguments[1])")
    exit(64)
}

/// The least a correct increment shared between processes can do: hold the
/// same lock file `JSONFileStore` uses, read the file, write the new text to a
/// temporary file, make it durable, rename it over the file, make the rename durable.
enum FloorIncrement {
    struct Failure: Error {
        var operation: String
        var code: Int32
    }

    static func run(_ path: String) throws {
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw Failure(operation: "open lock", code: errno) }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw Failure(operation: "flock", code: errno) }
        defer { flock(lock, LOCK_UN) }
        let value = readCounter(path) + 1
        let temporary = path + ".floor-\(getpid())"
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Failure(operation: "open temporary", code: errno) }
        let text = Array("{\n  \"counter\" : \(value)\n}\n".utf8)
        let written = text.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        guard written == text.count, fsync(file) == 0 else { throw Failure(operation: "write", code: errno) }
        close(file)
        guard rename(temporary, path) == 0 else { throw Failure(operation: "rename", code: errno) }
        let folder = open(String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(operation: "open folder", code: errno) }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw Failure(operation: "fsync folder", code: errno) }
    }

    /// The counter the file holds, 0 when there is none: the digits after `"counter"`.
    static func readCounter(_ path: String) -> Int {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return 0 }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let byteCount = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard byteCount > 0 else { return 0 }
        let digits = bytes[..<byteCount].drop { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.prefix {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        return Int(String(decoding: digits, as: UTF8.self)) ?? 0
    }
}
