import Foundation

/// Runs the `StowageJSONFileWorker` executable, which `swift test` builds
/// beside the test bundle, as a second process.
enum Worker {
    /// The executable's path: next to the running test binary.
    static let executable: String = {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(filePath: testBinary).deletingLastPathComponent()
        // On Apple platforms the test binary sits inside a .xctest bundle.
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        return directory.appending(path: "StowageJSONFileWorker").path(percentEncoded: false)
    }()

    /// Starts the worker with `arguments`; standard output goes to a pipe when asked.
    static func start(_ arguments: [String], environment: [String: String]? = nil, capturingOutput: Bool = false) throws -> (Process, Pipe?) {
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = capturingOutput ? Pipe() : nil
        if let pipe { process.standardOutput = pipe }
        try process.run()
        return (process, pipe)
    }

    /// Runs the worker to the end.
    /// - Returns: its exit status and standard output.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let (process, pipe) = try start(arguments, environment: environment, capturingOutput: true)
        let output = pipe?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Runs several workers at once and waits for all of them.
    /// - Returns: their exit statuses.
    static func runConcurrently(_ argumentLists: [[String]]) throws -> [Int32] {
        let processes = try argumentLists.map { try start($0).0 }
        for process in processes { process.waitUntilExit() }
        return processes.map(\.terminationStatus)
    }
}
