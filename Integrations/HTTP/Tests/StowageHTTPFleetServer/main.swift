// One server of a fleet, for the Python clients' test (Scripts/check-python-clients.sh): a pole
// whose remote values are a PostgresStore namespace, served over OFREP on a free port of 127.0.0.1.
//
// Environment: the STOWAGE_POSTGRES_* variables of Integrations/Postgres/Scripts/postgres.sh,
// STOWAGE_HTTP_NAMESPACE, and STOWAGE_HTTP_TOKEN_SHA256 (the digest of the clients' token).
// It prints "listening on PORT" once it serves, then reads lines on standard input: each a JSON
// payload of flag definitions, applied as a patch and committed to PostgreSQL, then answered with
// "applied". It stops, gracefully, at the end of its input or on SIGTERM.
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StowageFlags
import StowageHTTP
import StowageInMemory
import StowagePostgres
import UnixSignals

struct ShopFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("The banner's text") var banner = "Welcome"
    @Flag("Requests a client may make each second") var rateLimit = 100
}

/// Applies the payloads read on standard input; its end shuts the group down gracefully.
struct PayloadReader: Service {
    let flags: FlagPole<ShopFlags>
    let store: PostgresStore

    func run() async throws {
        // Read on a thread of its own: readLine blocks, which no task of the cooperative pool may.
        let lines = AsyncStream<String> { continuation in
            Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }.start()
        }
        for await line in lines {
            let result = try flags.update(with: Data(line.utf8), mode: .patch)
            try await store.commitPendingWrites()
            say(result.rejected.isEmpty ? "applied" : "rejected: \(result.rejected)")
        }
    }
}

/// A line to the script, at once (print's buffer would hold it while stdout is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let environment = ProcessInfo.processInfo.environment
guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
    let user = environment["STOWAGE_POSTGRES_USER"], let database = environment["STOWAGE_POSTGRES_DATABASE"],
    let namespace = environment["STOWAGE_HTTP_NAMESPACE"], let digest = environment["STOWAGE_HTTP_TOKEN_SHA256"]
else {
    FileHandle.standardError.write(Data("Set STOWAGE_POSTGRES_*, STOWAGE_HTTP_NAMESPACE and STOWAGE_HTTP_TOKEN_SHA256.\n".utf8))
    exit(64)
}
let logger = Logger(label: "stowage-http-fleet-server")
let store = try PostgresStore(
    configuration: PostgresClient.Configuration(
        host: host, port: port, username: user, password: environment["STOWAGE_POSTGRES_PASSWORD"], database: database, tls: .disable),
    namespace: namespace)
let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: store)
let router = Router()
OFREPEndpoint(serving: flags, accessTokens: try AccessTokens(sha256Digests: [digest])).addRoutes(to: router)
let server = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in say("listening on \(channel.localAddress?.port ?? 0)") }, logger: logger)
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [
            .init(service: store), .init(service: server),
            .init(service: PayloadReader(flags: flags, store: store), successTerminationBehavior: .gracefullyShutdownGroup),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
