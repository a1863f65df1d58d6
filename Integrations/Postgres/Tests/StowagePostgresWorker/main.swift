// A second process for the PostgreSQL store's tests: a server of the fleet,
// reaching the database the test's variables name. Not a product.
import Foundation
import Stowage
import StowageJSONFile
import StowageJSON
import StowagePostgres
import Synchronization

/// Reports a failure to the test through the exit status and standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StowagePostgresWorker: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    fail("usage: StowagePostgresWorker increment|write|read <namespace> <key> [count|value], or serve <namespace> <name>")
}
let environment = ProcessInfo.processInfo.environment
guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
    let user = environment["STOWAGE_POSTGRES_USER"], let password = environment["STOWAGE_POSTGRES_PASSWORD"],
    let database = environment["STOWAGE_POSTGRES_DATABASE"]
else { fail("the STOWAGE_POSTGRES_* variables are not set") }
var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
let (command, namespace) = (arguments[0], arguments[1])
let key = arguments[2]
if command == "serve" {
    // A server's name, so a test can find its connections: its listener is "fleet-<name> listener".
    configuration.options.additionalStartupParameters = [("application_name", "fleet-\(key)")]
}

do {
    let store = try PostgresStore(
        configuration: configuration, namespace: namespace,
        options: .init(
            operationTimeout: .seconds(5), initialRetryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(500),
            heartbeatInterval: .seconds(1)))
    try store.waitUntilReady(timeout: .seconds(30))
    switch command {
    case "serve":
        try serve(store)
    case "increment":
        // increment <namespace> <key> <count>: adds 1 through the synchronous modify, <count> times.
        guard arguments.count > 3, let count = Int(arguments[3]) else { fail("increment needs a count") }
        let counter = store.reference(forKey: key, as: Int.self)
        for _ in 0..<count { try counter.modify { $0 = ($0 ?? 0) + 1 } }
    case "write":
        // write <namespace> <key> <value>: sets a string and waits for the commit.
        guard arguments.count > 3 else { fail("write needs a value") }
        try store.set(arguments[3], forKey: key)
        try store.flush()
    case "read":
        // read <namespace> <key>: prints the string the store loaded, or "absent".
        print(try store.value(forKey: key, as: String.self) ?? "absent")
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}

/// `serve <namespace> <name>`: a server of the fleet, driven through its standard
/// input and output, one line each. It prints `ready`, then, as they
/// happen, `change <key as JSON> <value as JSON, or absent>` for each change
/// its observer sees and `status <status>` for each status change. It
/// answers `dump` with `entries <every key and value, as a JSON object>`,
/// and `status` with the current status; `quit` ends it.
func serve(_ store: PostgresStore) throws {
    let say = Output.say
    let json = Output.json
    let observation = store.observe { change in
        guard case .key(let key) = change else { return say("change-all") }
        say("change \(json(.string(key))) \(json(try? store.value(forKey: key, as: StoredValue.self)))")
    }
    let statusTask = Task.detached {
        for await status in store.statusUpdates() { say("status \(status)") }
    }
    say("ready")
    while let line = readLine() {
        switch line {
        case "dump": say("entries \(json(.dictionary((try? store.snapshot().entries) ?? [:])))")
        case "status": say("status \(store.status)")
        case "quit":
            observation.cancel()
            statusTask.cancel()
            return
        default: say("unknown \(line)")
        }
    }
}

/// Whole lines on standard output, from any thread.
enum Output {
    private static let lock = Mutex(())

    @Sendable static func say(_ line: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    @Sendable static func json(_ value: StoredValue?) -> String {
        guard let value else { return "absent" }
        return (try? value.jsonText()) ?? "unencodable"
    }
}
