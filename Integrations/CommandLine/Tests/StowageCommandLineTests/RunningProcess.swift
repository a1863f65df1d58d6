import Foundation

/// An executable of this package, found beside the test binary.
func executable(_ name: String) -> URL {
    let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var directory = URL(filePath: testBinary).deletingLastPathComponent()
    while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
    return directory.appending(path: name)
}

/// What `stowage` printed, and how it exited.
struct ToolRun {
    let status: Int32
    let output: String
    let error: String
}

/// Runs the `stowage` tool to the end, as a person does from a shell.
func stowage(_ arguments: String..., environment: [String: String]? = nil) throws -> ToolRun {
    try stowage(arguments, environment: environment)
}

func stowage(_ arguments: [String], environment: [String: String]? = nil) throws -> ToolRun {
    try runToTheEnd("stowage", arguments, environment: environment)
}

/// Runs one of the package's executables to the end.
func runToTheEnd(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ToolRun {
    let process = Process()
    process.executableURL = executable(name)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complained = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolRun(status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self), error: String(decoding: complained, as: UTF8.self))
}

/// A process that runs beside the test (a program with flags or settings,
/// or `stowage watch`), whose output lines the test waits for.
final class RunningProcess: @unchecked Sendable {
    // Guarded by `condition`.
    private var lines: [String] = []
    private var partial = ""
    private let condition = NSCondition()
    private let process = Process()
    private let input = Pipe()

    init(_ name: String, _ arguments: [String]) throws {
        process.executableURL = executable(name)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.received(handle.availableData)
        }
        try process.run()
    }

    private func received(_ data: Data) {
        condition.lock()
        partial += String(decoding: data, as: UTF8.self)
        while let end = partial.firstIndex(of: "\n") {
            lines.append(String(partial[..<end]))
            partial = String(partial[partial.index(after: end)...])
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a line containing `text` has been printed; the bound only ends a failing test.
    /// - Returns: the line, or `nil` if none came in time.
    func waitForLine(containing text: String, seconds: Double = 30) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = lines.first(where: { $0.contains(text) }) { return line }
            guard condition.wait(until: deadline) else { return lines.first { $0.contains(text) } }
        }
    }

    /// Every line printed so far.
    var printed: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Ends the process: closes its input (the programs stop), or terminates it (`watch`).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A fresh folder for one test's files, removed afterwards.
final class Folder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appending(path: "stowage-tool-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appending(path: name).path(percentEncoded: false) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
