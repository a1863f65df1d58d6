#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Stowage
import StowageJSON
import StowageLocking
import Synchronization

/// Reads the raw file over and over while the processes write it, as any
/// other program might, and checks every version it catches: it exists once
/// created, Foundation parses it as an object (and now and then Stowage's own
/// parser agrees with it), the accounts sum to zero, and no counter is below
/// its value in an earlier version.
final class FileChecker: Sendable {
    struct Result: Sendable {
        var checks = 0
        var crossChecks = 0
        var largestFile = 0
        var failureCount = 0
        var failures: [String] = []
    }

    private final class Shared: Sendable {
        let running = Atomic<Bool>(true)
        let result = Locked(Result())
    }

    private let shared = Shared()
    private let thread: JoinableThread

    init(path: String, interval: Duration = .milliseconds(10)) {
        let shared = shared
        thread = JoinableThread(name: "file-checker") {
            var check = VersionCheck(path: path)
            while shared.running.load(ordering: .relaxed) {
                check.once(into: shared.result)
                Thread.sleep(forTimeInterval: Double(interval / .microseconds(1)) / 1_000_000)
            }
            // One more look at the file every process has finished with.
            check.once(into: shared.result)
        }
    }

    /// Stops checking after one last check.
    func stop() -> Result {
        shared.running.store(false, ordering: .relaxed)
        thread.join()
        return shared.result.withLock { $0 }
    }
}

/// What the checker remembers between versions.
private struct VersionCheck {
    let path: String
    var created = false
    var previous: [String: Int] = [:]
    var brokenCopies = 0

    mutating func once(into result: Locked<FileChecker.Result>) {
        var failures: [String] = []
        var crossChecked = false
        let bytes = RawFile.read(path)
        defer {
            result.withLock { result in
                result.checks += 1
                if crossChecked { result.crossChecks += 1 }
                result.largestFile = max(result.largestFile, bytes?.count ?? 0)
                result.failureCount += failures.count
                result.failures.append(contentsOf: failures.prefix(max(0, 20 - result.failures.count)))
            }
        }
        guard let bytes else {
            if created { failures.append("the file was missing after it had been created") }
            return
        }
        created = true
        let object: [String: Any]
        do {
            object = try RawFile.foundationObject(bytes)
        } catch {
            failures.append("a version of \(bytes.count) bytes did not parse: \(error)\(keepBrokenCopy(bytes))")
            return
        }
        let balance = (0..<SoakKeys.accountCount).reduce(0) { $0 + (RawFile.integer(object[SoakKeys.account($1)]) ?? 0) }
        if balance != 0 { failures.append("the accounts sum to \(balance), not 0: a transaction was torn or lost\(keepBrokenCopy(bytes))") }
        for key in SoakKeys.monotonic {
            let value = RawFile.integer(object[key]) ?? 0
            if let before = previous[key], value < before {
                failures.append("\(key) went from \(before) to \(value): an update was lost\(keepBrokenCopy(bytes))")
            }
            previous[key] = value
        }
        if Int.random(in: 0..<10) == 0 {
            crossChecked = true
            guard case .dictionary(let members)? = try? JSONParser().parse(bytes) else {
                failures.append("Foundation parsed a version that Stowage's parser rejects\(keepBrokenCopy(bytes))")
                return
            }
            for key in SoakKeys.monotonic where members[key].flatMap({ try? Int(storedValue: $0) }) != RawFile.integer(object[key]) {
                failures.append("the parsers disagree on \(key)\(keepBrokenCopy(bytes))")
            }
        }
    }

    /// Keeps the first few offending versions beside the file for a post-mortem.
    private mutating func keepBrokenCopy(_ bytes: [UInt8]) -> String {
        guard brokenCopies < 3 else { return "" }
        brokenCopies += 1
        let copy = path + ".offending-\(brokenCopies)"
        guard (try? Data(bytes).write(to: URL(filePath: copy))) != nil else { return "" }
        return " (kept as \(copy))"
    }
}
