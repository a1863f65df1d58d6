public import Foundation

/// One of the package's worker executables, which `swift test` builds beside
/// the test bundle, run as a second process.
public struct WorkerProcess: Sendable {
    public let executable: String

    /// The worker executable `name`, found next to the running test binary.
    public init(_ name: String) {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(filePath: testBinary).deletingLastPathComponent()
        // On Apple platforms the test binary sits inside a .xctest bundle.
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        executable = directory.appending(path: name).path(percentEncoded: false)
    }

    /// Starts the worker with `arguments` and, when given, exactly `environment`;
    /// its standard output goes to a pipe.
    public func start(_ arguments: [String], environment: [String: String]? = nil) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        return (process, pipe)
    }

    /// Waits for a started worker.
    /// - Returns: its exit status and standard output.
    public static func finish(_ started: (process: Process, output: Pipe)) -> (status: Int32, output: String) {
        let output = started.output.fileHandleForReading.readDataToEndOfFile()
        started.process.waitUntilExit()
        return (started.process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Runs the worker to the end.
    /// - Returns: its exit status and standard output.
    @discardableResult
    public func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        Self.finish(try start(arguments, environment: environment))
    }

    /// Runs the worker once per argument list, all at once, and waits for every one.
    /// - Returns: their exit statuses.
    public func runConcurrently(_ argumentLists: [[String]]) throws -> [Int32] {
        // Their output is not captured: a worker blocked on a full pipe, holding a
        // lock another worker waits for, would never finish.
        let processes = try argumentLists.map { arguments in
            let process = Process()
            process.executableURL = URL(filePath: executable)
            process.arguments = arguments
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        return processes.map(\.terminationStatus)
    }
}
