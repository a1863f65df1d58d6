import Foundation
import Logging
import StowageLocking
import StowagePostgres

/// The server `Scripts/postgres.sh run` started, as its exported variables
/// describe it, and plain postgres-nio clients on it for the baselines.
struct BenchmarkDatabase: Sendable {
    let configuration: PostgresClient.Configuration
    /// The schema the stores keep their tables in (the default one).
    static let storeSchema = "stowage"
    /// The schema of the baselines' own tables.
    static let baselineSchema = "stowage_benchmarks"

    static func fromEnvironment() throws(BenchmarkFailure) -> BenchmarkDatabase {
        let environment = ProcessInfo.processInfo.environment
        guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
            let user = environment["STOWAGE_POSTGRES_USER"], let database = environment["STOWAGE_POSTGRES_DATABASE"]
        else {
            throw BenchmarkFailure(
                "the STOWAGE_POSTGRES_* variables are not set: run Integrations/Postgres/Scripts/benchmark.sh, which starts a throwaway server and sets them")
        }
        // Loopback TCP without TLS, as the tests' default configuration: the
        // figures are the store's and the protocol's, not the cipher's.
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: environment["STOWAGE_POSTGRES_PASSWORD"], database: database, tls: .disable)
        if environment[noticesCarryValuesVariable] == "on" {
            configuration.options.additionalStartupParameters.append(("stowage.notices_carry_values", "on"))
        }
        return BenchmarkDatabase(configuration: configuration)
    }

    /// Set to `on` for a child whose sessions opt in to values in notices (the fleet group's writer).
    static let noticesCarryValuesVariable = "STOWAGE_BENCHMARK_NOTICES_CARRY_VALUES"

    /// Runs `body` with a plain client of its own, stopped afterwards.
    func withClient<Result: Sendable>(_ body: @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// For statements sent on a connection of a plain client by hand, which postgres-nio asks a logger of.
    static let silentLogger = Logger(label: "stowage.benchmarks") { _ in SwiftLogNoOpLogHandler() }

    /// Opens a store, runs it until ``close(_:)`` or the end of the process, and waits for its first load.
    func openStore(namespace: String, options: PostgresStore.Options = .init()) async throws -> PostgresStore {
        let store = try PostgresStore(configuration: configuration, namespace: namespace, options: options)
        let run = Task.detached {
            do { try await store.run() } catch { print("\(store) could not run: \(error)") }
        }
        Self.runs.withLock { $0[ObjectIdentifier(store)] = run }
        try await store.ready(timeout: .seconds(30))
        return store
    }

    /// Stops a store ``openStore(namespace:options:)`` opened, once it has committed what it queued.
    func close(_ store: PostgresStore) async throws {
        try await store.commitPendingWrites()
        let run = Self.runs.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }
        run?.cancel()
        await run?.value
    }

    /// The runs of the stores this process opened.
    private static let runs = Locked<[ObjectIdentifier: Task<Void, Never>]>([:])

    /// Creates the store's tables (opening a store does) and the baselines' schema.
    func prepare(client: PostgresClient) async throws {
        // Not listening: a listening connection of the parent's would be one
        // more for the convergence group's `pg_terminate_backend` to find.
        try await close(openStore(namespace: "benchmarks-setup", options: .init(listensForChanges: false)))
        try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(Self.baselineSchema)"))
    }

    /// The value column of one key of the store's table, or `nil` without a row.
    static func storedText(client: PostgresClient, namespace: String, key: String) async throws -> String? {
        let rows = try await client.query("SELECT value FROM stowage.entries WHERE namespace = \(namespace) AND key = \(key)")
        var found: String?
        for try await value in rows.decode(String?.self) { found = value }
        return found
    }
}

/// A name for this run's namespaces, so that runs against one server never meet.
let runIdentifier = String(UUID().uuidString.prefix(8)).lowercased()

/// Runs blocking work on a thread of its own, not on Swift's cooperative
/// pool (two threads on two cores), as synchronous code would call the store.
func onThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Swift.Result { try work() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
