import StowagePostgres
import StowageBenchmarkSupport

/// One process of the modify group, started by ``ChildProcesses`` with a
/// hidden subcommand: `__modify-child store|floor <namespace> <count>`.
///
/// It connects, says "ready", waits at the gate, makes its increments, and
/// then writes `done <monotonic ns> <attempts> <most attempts for one
/// increment>` and a line of each increment's latency in nanoseconds.
enum ModifyChild {
    static let subcommand = "__modify-child"

    /// The key every store child increments, and the floor's table.
    static let key = "counter"
    static let floorTable = "\(BenchmarkDatabase.baselineSchema).counter"

    enum Kind: String {
        /// `reference.modify { $0 += 1 }`: the store's compare-and-swap on the row's revision.
        case store
        /// `UPDATE … SET n = n + 1 WHERE id = 1`, autocommit: the server serialises on the row lock, nothing retries.
        case floor
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, let kind = Kind(rawValue: arguments[0]), let count = Int(arguments[2]) else {
            throw BenchmarkFailure("usage: \(subcommand) store|floor <namespace> <count>")
        }
        let database = try BenchmarkDatabase.fromEnvironment()
        var latencies: [UInt64] = []
        latencies.reserveCapacity(count)
        var attempts = 0
        var mostAttempts = 1
        switch kind {
        case .store:
            let store = try await database.openStore(namespace: arguments[1])
            let counter = store.reference(forKey: key, as: Int.self)
            // The synchronous modify blocks its thread, as a server's request handler would; on a thread of its own.
            (latencies, attempts, mostAttempts) = try await onThread {
                try ParentChannel.waitAtGate()
                var latencies: [UInt64] = []
                latencies.reserveCapacity(count)
                var attempts = 0
                var mostAttempts = 0
                for _ in 0..<count {
                    let start = Timestamp.now()
                    var tries = 0
                    try counter.modify { value in
                        tries += 1
                        value = (value ?? 0) + 1
                    }
                    latencies.append(Timestamp.now().nanoseconds &- start.nanoseconds)
                    attempts += tries
                    mostAttempts = max(mostAttempts, tries)
                }
                return (latencies, attempts, mostAttempts)
            }
            withExtendedLifetime(store) {}
        case .floor:
            latencies = try await database.withClient { client in
                for try await _ in try await client.query("SELECT 1") {}  // connected before the gate
                try ParentChannel.waitAtGate()
                var latencies: [UInt64] = []
                for _ in 0..<count {
                    let start = Timestamp.now()
                    for try await _ in try await client.query(PostgresQuery(unsafeSQL: "UPDATE \(floorTable) SET n = n + 1 WHERE id = 1")) {}
                    latencies.append(Timestamp.now().nanoseconds &- start.nanoseconds)
                }
                return latencies
            }
            attempts = count
        }
        let finished = Timestamp.now()
        ParentChannel.say("done \(finished.nanoseconds) \(attempts) \(mostAttempts)\n" + latencies.map(String.init).joined(separator: " "))
    }
}
