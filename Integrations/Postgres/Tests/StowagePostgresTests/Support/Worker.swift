import Foundation

/// The worker executable, started as another server of the fleet would be.
enum Worker {
    /// Built by `swift test` beside the test binary (on Apple platforms, beside its .xctest bundle).
    static var executable: URL {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(filePath: testBinary).deletingLastPathComponent()
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        return directory.appending(path: "StowagePostgresWorker")
    }

    /// Starts the worker with the database's variables, its standard output piped.
    static func start(_ arguments: [String], database: TestDatabase, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess.start(
            executable.path, arguments,
            environment: ProcessInfo.processInfo.environment.merging(database.environment) { $1 }.merging(environment) { $1 })
    }

    /// Runs the worker to the end: its status and standard output.
    static func run(_ arguments: [String], database: TestDatabase) throws -> (status: Int32, output: String) {
        let worker = try start(arguments, database: database)
        let output = worker.readOutputToEnd()
        return (worker.waitUntilExit(), output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
