import Foundation
import Logging
import NIOSSL
import StowageJSON
import StowageJSONFile
import StowagePostgres
import Testing

/// The throwaway server `Scripts/postgres.sh run` started for this test run,
/// as the variables it exported describe it, and private servers a test
/// starts, stops and restarts itself.
struct TestDatabase: Sendable {
    let host: String
    let port: Int
    let user: String
    let password: String
    let database: String
    let certificateAuthority: String
    /// The folder the script keeps the server in, for `stop`, `restart`, `kill` and `resume`.
    let folder: String

    /// The shared server of the run. Fails the test, naming the command to use, when the tests were not started by the script.
    static func shared() throws -> TestDatabase {
        try TestDatabase(environment: ProcessInfo.processInfo.environment)
    }

    init(environment: [String: String]) throws {
        func value(_ name: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw TestDatabaseMissing(variable: name)
            }
            return value
        }
        host = try value("STOWAGE_POSTGRES_HOST")
        port = Int(try value("STOWAGE_POSTGRES_PORT")) ?? 0
        user = try value("STOWAGE_POSTGRES_USER")
        password = try value("STOWAGE_POSTGRES_PASSWORD")
        database = try value("STOWAGE_POSTGRES_DATABASE")
        certificateAuthority = try value("STOWAGE_POSTGRES_CA")
        folder = try value("STOWAGE_POSTGRES_DIR")
    }

    /// Loopback TCP without TLS.
    var configuration: PostgresClient.Configuration {
        PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// TLS, verifying the server's certificate against the script's authority.
    func tlsConfiguration() throws -> PostgresClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificateAuthority)
        tls.certificateVerification = .fullVerification
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .require(tls))
        configuration.options.tlsServerName = "localhost"
        return configuration
    }

    /// The variables a worker process needs to reach this server.
    var environment: [String: String] {
        [
            "STOWAGE_POSTGRES_HOST": host, "STOWAGE_POSTGRES_PORT": "\(port)", "STOWAGE_POSTGRES_USER": user,
            "STOWAGE_POSTGRES_PASSWORD": password, "STOWAGE_POSTGRES_DATABASE": database,
            "STOWAGE_POSTGRES_CA": certificateAuthority, "STOWAGE_POSTGRES_DIR": folder,
        ]
    }

    /// A namespace no other test uses.
    static func uniqueNamespace(_ label: String = #function) -> String {
        "\(label.prefix(while: { $0 != "(" }))-\(UUID().uuidString.prefix(8))"
    }

    /// Opens a store on this server, runs it until the test ends, and waits until it has loaded.
    func openStore(namespace: String, options: PostgresStore.Options = .init()) async throws -> PostgresStore {
        let store = try PostgresStore(configuration: configuration, namespace: namespace, options: options)
        try RunningStores.run(store)
        try await store.ready(timeout: .seconds(30))
        return store
    }

    /// Runs `body` with a client of its own, for SQL a test runs beside the store, as an operator would.
    @discardableResult
    func withClient<Result: Sendable>(_ body: @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    // MARK: Private servers

    /// Starts a server of the test's own, which it may stop and restart without disturbing other tests.
    static func startPrivate() throws -> TestDatabase {
        let environment = ProcessInfo.processInfo.environment
        guard let script = environment["STOWAGE_POSTGRES_SCRIPT"], let scratch = environment["STOWAGE_POSTGRES_SCRATCH"] else {
            throw TestDatabaseMissing(variable: "STOWAGE_POSTGRES_SCRIPT")
        }
        let folder = "\(scratch)/\(UUID().uuidString.prefix(8))"
        try runScript(script, ["start", folder])
        let envFile = "\(folder)/env"
        var variables: [String: String] = [:]
        for line in try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n") {
            let assignment = line.hasPrefix("export ") ? line.dropFirst(7) : line[...]
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            var value = String(assignment[assignment.index(after: equals)...])
            if value.hasPrefix("'") || value.hasPrefix("\"") { value = String(value.dropFirst().dropLast()) }
            variables[String(assignment[..<equals])] = value
        }
        return try TestDatabase(environment: variables)
    }

    /// `postgres.sh stop|restart|kill|resume` on this server.
    func control(_ command: String) throws {
        guard let script = ProcessInfo.processInfo.environment["STOWAGE_POSTGRES_SCRIPT"] else {
            throw TestDatabaseMissing(variable: "STOWAGE_POSTGRES_SCRIPT")
        }
        _ = try Self.runScript(script, [command, folder])
    }

    /// Runs `sql` through `psql` as the superuser, as an operator would; what psql prints, tuples only.
    @discardableResult
    func psql(_ sql: String) throws -> String {
        guard let script = ProcessInfo.processInfo.environment["STOWAGE_POSTGRES_SCRIPT"] else {
            throw TestDatabaseMissing(variable: "STOWAGE_POSTGRES_SCRIPT")
        }
        let output = FileManager.default.temporaryDirectory.appending(path: "stowage-psql-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try Self.runScript(script, ["psql", folder, sql], output: output)
        return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every key of `namespace` the table holds a value for (removals left out), as the test reads it.
    func tableEntries(namespace: String) async throws -> [String: StoredValue] {
        try await withClient { client in
            var entries: [String: StoredValue] = [:]
            let rows = try await client.query("SELECT key, value FROM stowage.entries WHERE namespace = \(namespace) AND NOT removed")
            for try await (key, text) in rows.decode((String, String).self) { entries[key] = try StoredValue(jsonText: text) }
            return entries
        }
    }

    /// Runs the script to its end, with its output discarded (a server it
    /// starts would hold on to an inherited pipe, whose end would never
    /// come), as a ``ChildProcess``: `Process`'s wait for a child never
    /// returned here when two tests started scripts at once.
    /// `output` is a file for its standard output, when it is wanted.
    private static func runScript(_ script: String, _ arguments: [String], output: String = "/dev/null") throws {
        let status = try ChildProcess.run("/bin/bash", [script] + arguments, output: output)
        guard status == 0 else { throw ScriptFailed(arguments: arguments, status: status) }
    }
}

struct TestDatabaseMissing: Error, CustomStringConvertible {
    let variable: String
    var description: String {
        "\(variable) is not set: these tests run against a throwaway PostgreSQL server; run them with Scripts/test.sh, which starts one."
    }
}

struct ScriptFailed: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    var description: String { "postgres.sh \(arguments.joined(separator: " ")) exited with status \(status)" }
}
