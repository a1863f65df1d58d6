import StowagePostgres
import StowageBenchmarkSupport

/// One process of the modify group, started by ``ChildProcesses`` with a
/// hidden subcommand: `__modify-child store|floor|swap|update <namespace> <count>`.
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
        /// The store's own compare-and-swap by hand, on its table (its triggers included): `UPDATE … WHERE
        /// revision = $4 RETURNING revision`, and on a miss the row read again, then another try.
        case swap = "swap"
        /// A server-side increment of the store's row, on its table: `UPDATE … SET value = (value::bigint + 1)::text`.
        case update = "update"
    }

    /// The compare-and-swap floor's statements, the store's own (`PostgresSchema.updateIfRevision` and its read of a key).
    static let swapUpdate = """
        UPDATE stowage.entries SET value = $3::text, removed = ($3::text IS NULL) WHERE namespace = $1 AND key = $2 AND revision = $4 RETURNING revision
        """
    static let swapRead = "SELECT value, revision FROM stowage.entries WHERE namespace = $1 AND key = ANY($2::text[])"
    static let serverSideUpdate = "UPDATE stowage.entries SET value = (value::bigint + 1)::text WHERE namespace = $1 AND key = $2"

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, let kind = Kind(rawValue: arguments[0]), let count = Int(arguments[2]) else {
            throw BenchmarkFailure("usage: \(subcommand) store|floor|swap|update <namespace> <count>")
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
        case .swap, .update:
            let namespace = arguments[1]
            (latencies, attempts, mostAttempts) = try await database.withClient { client in
                for try await _ in try await client.query("SELECT 1") {}  // connected before the gate
                try ParentChannel.waitAtGate()
                var latencies: [UInt64] = []
                var (attempts, mostAttempts) = (0, 0)
                var held = try await read(namespace, client)
                for _ in 0..<count {
                    let start = Timestamp.now()
                    var tries = 0
                    if kind == .update {
                        var binds = PostgresBindings()
                        binds.append(namespace)
                        binds.append(key)
                        for try await _ in try await client.query(PostgresQuery(unsafeSQL: serverSideUpdate, binds: binds)) {}
                        tries = 1
                    } else {
                        while true {
                            tries += 1
                            var binds = PostgresBindings()
                            binds.append(namespace)
                            binds.append(key)
                            binds.append(String(held.value + 1))
                            binds.append(held.revision)
                            var revision: Int64?
                            for try await found in try await client.query(PostgresQuery(unsafeSQL: swapUpdate, binds: binds)).decode(Int64.self) {
                                revision = found
                            }
                            if let revision {
                                held = (held.value + 1, revision)
                                break
                            }
                            held = try await read(namespace, client)
                        }
                    }
                    latencies.append(Timestamp.now().nanoseconds &- start.nanoseconds)
                    attempts += tries
                    mostAttempts = max(mostAttempts, tries)
                }
                return (latencies, attempts, mostAttempts)
            }
        }
        let finished = Timestamp.now()
        ParentChannel.say("done \(finished.nanoseconds) \(attempts) \(mostAttempts)\n" + latencies.map(String.init).joined(separator: " "))
    }

    /// The counter's value and revision, as the compare-and-swap floor reads it.
    private static func read(_ namespace: String, _ client: PostgresClient) async throws -> (value: Int, revision: Int64) {
        var binds = PostgresBindings()
        binds.append(namespace)
        binds.append([key])
        for try await (text, revision) in try await client.query(PostgresQuery(unsafeSQL: swapRead, binds: binds)).decode((String, Int64).self) {
            guard let value = Int(text) else { throw BenchmarkFailure("the counter holds \(text), not an integer") }
            return (value, revision)
        }
        throw BenchmarkFailure("no counter row in namespace \(namespace)")
    }
}
