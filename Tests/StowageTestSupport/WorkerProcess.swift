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

    /// Starts the worker with `arguments`, its standard output going to a pipe.
    public func start(_ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
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
}
