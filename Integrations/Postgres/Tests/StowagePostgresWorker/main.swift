// A second process for the PostgreSQL store's tests: a server of the fleet,
// reaching the database the test's variables name. Not a product.
import Foundation
import StowagePostgres

/// Reports a failure to the test through the exit status and standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StowagePostgresWorker: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    fail("usage: StowagePostgresWorker increment|write|read <namespace> <key> [count|value]")
}
let environment = ProcessInfo.processInfo.environment
guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
    let user = environment["STOWAGE_POSTGRES_USER"], let password = environment["STOWAGE_POSTGRES_PASSWORD"],
    let database = environment["STOWAGE_POSTGRES_DATABASE"]
else { fail("the STOWAGE_POSTGRES_* variables are not set") }
let configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
let (command, namespace, key) = (arguments[0], arguments[1], arguments[2])

do {
    let store = try PostgresStore(configuration: configuration, namespace: namespace)
    try store.waitUntilReady(timeout: .seconds(30))
    switch command {
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
