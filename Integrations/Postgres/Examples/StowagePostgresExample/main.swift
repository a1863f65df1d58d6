import Foundation
import Logging
import ServiceLifecycle
import StowagePostgres
import UnixSignals

// Runtime settings a fleet of servers shares through PostgreSQL. Run it
// against a throwaway server with:
//
//   Scripts/example.sh
//
// which starts one, sets the STOWAGE_POSTGRES_* variables and stops it
// afterwards. Run it twice against your own server and the visit count goes
// on from where the first run left it.

/// Every setting, named once.
enum Settings: StorageKeyGroup {
    enum Checkout: StorageKeyGroup {
        typealias Parent = Settings
        static let maximumItems = key("maximumItems", default: 50)
        static let banner = key("banner", default: "Welcome")
    }
    static let visits = key("visits", default: 0)
}

let environment = ProcessInfo.processInfo.environment
guard let host = environment["STOWAGE_POSTGRES_HOST"], let port = environment["STOWAGE_POSTGRES_PORT"].flatMap(Int.init),
    let user = environment["STOWAGE_POSTGRES_USER"], let database = environment["STOWAGE_POSTGRES_DATABASE"]
else {
    print("Set STOWAGE_POSTGRES_HOST, _PORT, _USER, _PASSWORD and _DATABASE, or run Scripts/example.sh, which starts a server.")
    exit(64)
}
let configuration = PostgresClient.Configuration(
    host: host, port: port, username: user, password: environment["STOWAGE_POSTGRES_PASSWORD"], database: database, tls: .disable)

/// This program's own work, as a server's request handling would be: a
/// service beside the stores, in the same group. When it is done, the group
/// shuts down gracefully, as it would on SIGTERM.
struct CheckoutService: Service {
    let store: PostgresStore
    /// Another server of the fleet (a second store here, as another process would open it).
    let anotherServer: PostgresStore

    func run() async throws {
        // Waits for the first load, so the reads below give the database's values.
        try await store.ready()
        print("Opened \(store)")

        /// A service's view of its settings: wrappers read from the store's cache, never the network.
        struct CheckoutSettings {
            @PostgresStorage<Int> var maximumItems: Int
            @PostgresStorage<String> var banner: String
            init(store: PostgresStore) {
                _maximumItems = PostgresStorage(Settings.Checkout.maximumItems, in: store)
                _banner = PostgresStorage(Settings.Checkout.banner, in: store)
            }
        }
        let settings = CheckoutSettings(store: store)

        // Observers hear of every change: this process's writes, other servers'
        // writes, and an operator's UPDATE in psql, pushed by PostgreSQL.
        let heard = AsyncStream.makeStream(of: String?.self)
        let token = store.reference(forKey: Settings.Checkout.banner.name, as: String.self).observe { banner in
            print("  observer: banner is now \(banner.map { "\"\($0)\"" } ?? "unset")")
            heard.continuation.yield(banner)
        }

        // A compare-and-swap on the row's revision: no increment from another server is lost.
        let visits = try await store.reference(forKey: Settings.visits.name, as: Int.self).modifyAndCommit { visits -> Int in
            let next = (visits ?? 0) + 1
            visits = next
            return next
        }
        print("Visit \(visits) of this namespace")

        print("maximumItems: \(settings.maximumItems), banner: \"\(settings.banner)\"")
        settings.banner = "Free shipping over 50 €"  // written behind: the cache has it at once
        store[Settings.Checkout.maximumItems] = 80  // typed keys work as on any store
        try await store.commitPendingWrites()  // returns once PostgreSQL has committed both
        print("After the change: maximumItems: \(settings.maximumItems), banner: \"\(settings.banner)\"")

        // The other server changes the banner: the database notifies every store listening, and this one's observer hears it.
        try await anotherServer.ready()
        let sent = ContinuousClock.now
        try await anotherServer.setAndCommit("Back at 14:00", forKey: Settings.Checkout.banner.name)
        guard await arrives("Back at 14:00", on: heard.stream, within: .seconds(10)) else {
            throw ExampleFailure("The other server's change did not arrive within 10 s")
        }
        let latency = (ContinuousClock.now - sent).formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 1)))
        print("Another server's change reached this one's observer within \(latency) of its write, commit included")
        print("Status: \(store.status)")

        let snapshot = try store.snapshot()
        print("Every key of the namespace: \(snapshot.entries.keys.sorted().joined(separator: ", "))")
        // Queued now, committed by the store's graceful shutdown when this service returns.
        try store.set(visits, forKey: "last-visit")
        withExtendedLifetime(token) {}
    }
}

struct ExampleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

do {
    let store = try PostgresStore(configuration: configuration, namespace: "checkout-service")
    let anotherServer = try PostgresStore(configuration: configuration, namespace: "checkout-service")
    // As a server has it: postgres-nio's client for the application's own queries, the stores, and the
    // application; SIGTERM (or SIGINT) shuts the group down gracefully, the application first, as it
    // comes last, and the stores commit what they queued before they stop.
    let services = ServiceGroup(
        configuration: .init(
            services: [
                .init(service: PostgresClient(configuration: configuration)), .init(service: store), .init(service: anotherServer),
                .init(service: CheckoutService(store: store, anotherServer: anotherServer), successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: Logger(label: "stowage-postgres-example")))
    try await services.run()
    print("Shut down gracefully: \(store.queuedWriteCount) writes left uncommitted")
} catch {
    print("The example stopped: \(error)")
    exit(1)
}

/// Whether `expected` comes on `stream` within `timeout`.
func arrives(_ expected: String, on stream: AsyncStream<String?>, within timeout: Duration) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await value in stream where value == expected { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        defer { group.cancelAll() }
        return await group.next() ?? false
    }
}
