// A second process for the PostgreSQL store's tests: a server of the fleet,
// reaching the database the test's variables name. Not a product.
import Foundation
import Stowage
import StowageHistory
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
    fail("usage: StowagePostgresWorker increment|count-increments|write|read|open <namespace> <key> [count|value], or serve <namespace> <name>")
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
} else if let name = environment["STOWAGE_WORKER_APPLICATION_NAME"] {
    // So a test can find, and kill, the connections of its workers.
    configuration.options.additionalStartupParameters = [("application_name", name)]
}
// Errors the store reports, so `open` can tell a first load that failed before it succeeded.
let reportedErrors = Mutex<[String]>([])
StowageReport.handler = { report in
    if case .error(let error) = report { reportedErrors.withLock { $0.append(error.message) } }
}

// `open` tells a first load refused by the database from one that succeeded; twelve sanitized
// processes starting at once beside other tests, on two cores, can take more than 5 s to be answered,
// which is not what it looks for.
let operationTimeout: Duration = command == "open" ? .seconds(60) : .seconds(5)
do {
    let store = try PostgresStore(
        configuration: configuration, namespace: namespace,
        options: .init(
            schema: environment["STOWAGE_WORKER_SCHEMA"] ?? "stowage", operationTimeout: operationTimeout, initialRetryDelay: .milliseconds(20),
            maximumRetryDelay: .milliseconds(500), heartbeatInterval: .seconds(1)))
    // As a server's ServiceGroup would; the process ends without a graceful shutdown, so every command commits what it writes.
    Task.detached {
        do { try await store.run() } catch { fail("the store could not run: \(error)") }
    }
    try store.waitUntilReady(timeout: .seconds(30))
    switch command {
    case "serve":
        try serve(store)
    case "increment":
        // increment <namespace> <key> <count>: adds 1 through the synchronous modify, <count> times.
        guard arguments.count > 3, let count = Int(arguments[3]) else { fail("increment needs a count") }
        let counter = store.reference(forKey: key, as: Int.self)
        for _ in 0..<count { try counter.modify { $0 = ($0 ?? 0) + 1 } }
    case "open":
        // open <namespace> <anything>: opens the store (in STOWAGE_WORKER_SCHEMA) and fails if its first load failed before it succeeded.
        let errors = reportedErrors.withLock { $0 }
        guard errors.isEmpty else { fail("the store loaded only after failing: \(errors.joined(separator: "; "))") }
        print("opened")
    case "count-increments":
        // count-increments <namespace> <key> <count>: tries <count> increments, going on after a failed one, and prints
        // "acknowledged A unknown U refused R": those that returned, those whose outcome the error calls unknown, the rest.
        guard arguments.count > 3, let count = Int(arguments[3]) else { fail("count-increments needs a count") }
        let counter = store.reference(forKey: key, as: Int.self)
        var (acknowledged, unknown, refused) = (0, 0, 0)
        for _ in 0..<count {
            do {
                try counter.modify { $0 = ($0 ?? 0) + 1 }
                acknowledged += 1
            } catch {
                if (error as? StorageError)?.message.contains("unknown") == true { unknown += 1 } else { refused += 1 }
            }
        }
        print("acknowledged \(acknowledged) unknown \(unknown) refused \(refused)")
    case "write":
        // write <namespace> <key> <value>: sets a string and waits for the commit.
        guard arguments.count > 3 else { fail("write needs a value") }
        try store.set(arguments[3], forKey: key)
        try store.flush()
    case "history-writes":
        // history-writes <namespace> <keys> <count>: sets "<author>-<i>" in key "k<i % keys>", <count> times, as
        // STOWAGE_WORKER_AUTHOR, each waiting for its commit, going on after a failed one; prints "ok <key> <value>"
        // for each acknowledged write, then waits until every queued write is committed and prints "done".
        guard arguments.count > 3, let keys = Int(key), let count = Int(arguments[3]) else { fail("history-writes needs keys and a count") }
        let author = environment["STOWAGE_WORKER_AUTHOR"] ?? "worker"
        for index in 0..<count {
            let (written, value) = ("k\(index % keys)", "\(author)-\(index)")
            do {
                try ChangeAuthor.$name.withValue(author) { try store.set(value, forKey: written) }
                try store.flush()
                print("ok \(written) \(value)")
            } catch {}
        }
        for _ in 0..<60 where (try? store.flush()) == nil {}
        print("done")
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
