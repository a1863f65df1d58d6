import Foundation

/// Runs the `StowageEnvironmentWorker` executable, which `swift test` builds
/// beside the test bundle, as a second process.
enum EnvironmentWorker {
    static let executable: String = {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(filePath: testBinary).deletingLastPathComponent()
        // On Apple platforms the test binary sits inside a .xctest bundle.
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        return directory.appending(path: "StowageEnvironmentWorker").path(percentEncoded: false)
    }()

    /// Runs the worker to the end with `environment`.
    /// - Returns: its exit status and standard output.
    static func run(environment: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
