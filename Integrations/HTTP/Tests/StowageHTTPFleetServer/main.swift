// One server of a fleet, for the Python clients' test (Scripts/check-python-clients.sh) and the
// admin page's browser test (Scripts/check-admin-page.sh): a pole whose remote values are a
// PostgresStore namespace, served over OFREP on a free port of 127.0.0.1, and the admin page for
// it and for a second namespace of settings ("<namespace>-settings", "database-password" secret).
//
// Environment: the STOWAGE_POSTGRES_* variables of Integrations/Postgres/Scripts/postgres.sh,
// STOWAGE_HTTP_NAMESPACE, STOWAGE_HTTP_TOKEN_SHA256 (the digest of the clients' token), and for
// the admin page STOWAGE_HTTP_SESSION_KEY (64 hex digits, the fleet's) and STOWAGE_HTTP_ADMIN_USERS
// ("name:role:password,…", hashed at start) and STOWAGE_HTTP_ADMIN_TOKEN ("name:role:token"). It prints "listening on PORT" once it serves, with
// STOWAGE_HTTP_PRINT_OBSERVED=1 "observed KEY VALUE" whenever its pole sees a flag change, and reads lines on standard input: each a JSON payload of
// flag definitions, applied as a patch and committed to PostgreSQL, then answered with "applied".
// It stops, gracefully, at the end of its input or on SIGTERM.
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StowageFlags
import StowageHTTP
import StowageInMemory
import StowageJSON
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
let settings = try PostgresStore(
    configuration: PostgresClient.Configuration(
        host: host, port: port, username: user, password: environment["STOWAGE_POSTGRES_PASSWORD"], database: database, tls: .disable),
    namespace: namespace + "-settings", options: .init(secretKeys: ["database-password"]))
let router = Router()
OFREPEndpoint(serving: flags, accessTokens: try AccessTokens(sha256Digests: [digest])).addRoutes(to: router)
if let keyText = environment["STOWAGE_HTTP_SESSION_KEY"], let userList = environment["STOWAGE_HTTP_ADMIN_USERS"] {
    var users = AdminUsers()
    for entry in userList.split(separator: ",") {
        let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, let role = AdminUsers.Role(rawValue: parts[1]) else { fatalError("STOWAGE_HTTP_ADMIN_USERS: \(entry)") }
        users.addUser(parts[0], passwordHash: AdminUsers.hashPassword(parts[2], cost: 4), role: role)
    }
    // "name:role:token", for the stowage tool's requests.
    if let tokenEntry = environment["STOWAGE_HTTP_ADMIN_TOKEN"] {
        let parts = tokenEntry.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, let role = AdminUsers.Role(rawValue: parts[1]) else { fatalError("STOWAGE_HTTP_ADMIN_TOKEN: name:role:token") }
        try users.addToken(sha256Digest: AccessTokens.sha256Digest(of: parts[2]), name: parts[0], role: role)
    }
    let key = stride(from: 0, to: keyText.count - 1, by: 2).compactMap { offset in
        UInt8(keyText.dropFirst(offset).prefix(2), radix: 16)
    }
    // Plain HTTP on the loopback interface: a browser keeps Secure cookies only for HTTPS and localhost.
    try AdminPage(flags: flags, settings: settings, users: users, sessionKey: key).addRoutes(to: router)
}
let printsObserved = environment["STOWAGE_HTTP_PRINT_OBSERVED"] == "1"
let observation = flags.observe { state in
    if printsObserved { say("observed \(state.key) \((try? state.value.jsonText()) ?? "?")") }
}
let server = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in say("listening on \(channel.localAddress?.port ?? 0)") }, logger: logger)
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [
            .init(service: store), .init(service: settings), .init(service: server),
            .init(service: PayloadReader(flags: flags, store: store), successTerminationBehavior: .gracefullyShutdownGroup),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
withExtendedLifetime(observation) {}
