import Foundation
import Testing

/// Why a wait ended without the element it waited for.
struct WaitFailure: Error, CustomStringConvertible {
    let description: String
}

/// The first element of `sequence` that satisfies `predicate`, waiting at
/// most `timeout`: a broken change path fails the test with a message
/// instead of hanging it, and a loaded machine has ample time. Nothing sleeps
/// to let something happen; the timeout only bounds a failure.
func firstElement<Sequence: AsyncSequence & Sendable>(
    of sequence: Sequence,
    within timeout: Duration = .seconds(10),
    waitingFor what: String,
    where predicate: @escaping @Sendable (Sequence.Element) -> Bool = { _ in true }
) async throws -> Sequence.Element where Sequence.Element: Sendable {
    try await withThrowingTaskGroup(of: Sequence.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw WaitFailure(description: "waited \(timeout) for \(what)")
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            throw WaitFailure(description: "the sequence ended while waiting for \(what)")
        }
        return found
    }
}

/// A fresh folder for one test, removed when `body` returns.
func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory.appending(path: "stowage-configuration-\(UUID().uuidString)", directoryHint: .isDirectory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Replaces `file` the way an editor or another program would, from another
/// process: `sh` writes a temporary file beside it and renames it over.
func replaceFromAnotherProcess(_ file: URL, with text: String) throws {
    let process = Process()
    process.executableURL = URL(filePath: "/bin/sh")
    process.arguments = ["-c", "printf '%s' \"$1\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"", "sh", text, file.path(percentEncoded: false)]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "sh could not replace \(file.lastPathComponent)")
}

/// Runs `body`, failing with a message if it takes longer than `timeout`;
/// for watches, whose iterators can not leave the task that runs them. The
/// body is cancelled then, which ends its streams.
func withinTimeLimit<Result: Sendable>(
    _ timeout: Duration = .seconds(10), waitingFor what: String, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() ?? nil else {
            throw WaitFailure(description: "waited \(timeout) for \(what)")
        }
        return result
    }
}
