// Reads a PostgresStore's cached value a given number of times, for
// callgrind to count its instructions: see Scripts/instruction-counts.sh at
// the repository's root, which starts a server with Scripts/postgres.sh (the
// STOWAGE_POSTGRES_* variables name it) and runs this twice, with N and 2N
// iterations, counting only inside `countedLoop`, and divides the difference
// by N. Not a product.
import Foundation
import StowagePostgres

/// The one path of this tool, as the root tool names its own.
let pathName = "postgres-wrapper-read-int"
let summary = "settings.counter, a @PostgresStorage Int read from the store's cache once loaded (group a of its benchmarks)"

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--list"] {
    print("\(pathName)\t\(summary)")
    exit(0)
}
guard arguments.count == 2, arguments[0] == pathName, let iterations = Int(arguments[1]), iterations >= 0 else {
    print("usage: StowagePostgresInstructionCounts \(pathName) ITERATIONS   (or --list)")
    exit(2)
}
let environment = ProcessInfo.processInfo.environment
guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
    let user = environment["STOWAGE_POSTGRES_USER"], let database = environment["STOWAGE_POSTGRES_DATABASE"]
else {
    print("Set STOWAGE_POSTGRES_HOST, _PORT, _USER, _PASSWORD and _DATABASE, or run this under Scripts/postgres.sh run, which starts a server.")
    exit(64)
}
let configuration = PostgresClient.Configuration(
    host: host, port: port, username: user, password: environment["STOWAGE_POSTGRES_PASSWORD"], database: database, tls: .disable)

// Synchronous throughout: a program with top-level `await` parks its main
// thread in dispatch_main, and valgrind 3.19 crashes as the next thread starts.
do {
    // Generous: under callgrind everything runs some 50 times slower.
    let store = try PostgresStore(configuration: configuration, namespace: "instruction-counts")
    // Runs until the process ends; the loop below reads the cache only.
    Task.detached { try await store.run() }
    try store.waitUntilReady(timeout: .seconds(120))
    try store.set(41, forKey: "counter")
    try store.flush()
    let settings = CounterSettings(store: store)
    let warmUpIterations = 100
    let warmUp = (0..<warmUpIterations).reduce(0) { sum, _ in sum &+ settings.counter }
    let sum = countedLoop(iterations) { settings.counter }
    guard warmUp &+ sum == 41 &* (warmUpIterations &+ iterations) else {
        print("\(pathName): the reads summed to \(warmUp &+ sum), not \(41 &* (warmUpIterations &+ iterations)): a read gave a wrong value.")
        exit(1)
    }
} catch {
    print("\(pathName): the setup failed: \(error)")
    exit(1)
}
