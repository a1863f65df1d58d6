import StowagePostgres
import StowageBenchmarkSupport

/// Group d: opening a store on a namespace of 10,000 keys
/// (`PostgresStore(configuration:namespace:)` and `ready()`, which returns once the first load is done)
/// against a plain client that connects and selects the same rows, as the
/// store's load does, decoding each into a dictionary. Both pay for a new
/// connection (TCP and SCRAM authentication); the store also creates its
/// tables if missing (a transaction under an advisory lock) and parses
/// every value's JSON text.
struct LoadBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    static let keyCount = 10_000

    func run() async throws -> ResultTable {
        let rounds = quick ? 1 : 15
        let namespace = "bench-load-\(runIdentifier)"
        let database = database
        let keyCount = Self.keyCount
        let select = "SELECT key, value, revision FROM stowage.entries WHERE namespace = $1"

        let (opened, fresh, warm) = try await database.withClient { client in
            try await database.prepare(client: client)
            // Half integers, half strings, as JSON text, each row stamped with a revision by the store's trigger.
            try await client.query(
                """
                INSERT INTO stowage.entries (namespace, key, value)
                SELECT \(namespace), 'setting.' || i, CASE WHEN i % 2 = 0 THEN i::text ELSE '"value ' || i || '"' END
                FROM generate_series(1, \(keyCount)) AS i
                """)
            var opened = Samples(), fresh = Samples(), warm = Samples()
            // Round 0 warms the server's cache up and is not kept.
            for round in 0...rounds {
                var store: PostgresStore?
                let openSeconds = try await measureAsync { store = try await database.openStore(namespace: namespace) }
                guard let store, try store.snapshot().entries.count == keyCount,
                    try store.value(forKey: "setting.\(keyCount)", as: Int.self) == keyCount,
                    try store.value(forKey: "setting.1", as: String.self) == "value 1"
                else { throw BenchmarkFailure("the store opened on \(namespace) does not hold its \(keyCount) keys") }

                let freshSeconds = try await measureAsync {
                    let rows = try await database.withClient { other in try await Self.selectRows(other, select, namespace) }
                    guard rows == keyCount else { throw BenchmarkFailure("the plain SELECT gave \(rows) rows, not \(keyCount)") }
                }
                let warmSeconds = try await measureAsync {
                    let rows = try await Self.selectRows(client, select, namespace)
                    guard rows == keyCount else { throw BenchmarkFailure("the plain SELECT gave \(rows) rows, not \(keyCount)") }
                }
                try await database.close(store)
                if round > 0 {
                    opened.append(openSeconds)
                    fresh.append(freshSeconds)
                    warm.append(warmSeconds)
                }
            }
            return (opened, fresh, warm)
        }

        var table = ResultTable(title: "d. First load of a namespace of \(Format.grouped(keyCount)) keys", ratioHeading: "p50 / baseline p50")
        let subjects = [
            ("new client, connect, `SELECT` the namespace's rows, decoded — baseline", fresh),
            ("`PostgresStore(configuration:namespace:)` and `ready()`", opened),
            ("context: the same `SELECT` on a connected client", warm),
        ]
        for (index, (name, samples)) in subjects.enumerated() {
            table.rows.append(
                .init(
                    name: name, p50: Format.duration(samples.median), p90: Format.duration(samples.percentile(90)),
                    opsPerSecond: nil, ratio: index == 0 ? "baseline" : Format.ratio(samples.median, fresh.median)))
        }
        table.notes = [
            "\(rounds) rounds (after one warm-up), the subjects in turn; p90 is over rounds. The store's rows are half integers, half strings.",
            "Each opened store held all \(Format.grouped(keyCount)) keys with the right values, and each SELECT gave \(Format.grouped(keyCount)) rows (checked).",
        ]
        return table
    }

    /// The rows of a namespace, decoded as the store's load decodes them (key, value text, revision), into a dictionary.
    private static func selectRows(_ client: PostgresClient, _ sql: String, _ namespace: String) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(namespace)
        var rows: [String: (String?, Int64)] = [:]
        for try await (key, value, revision) in try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds)).decode((String, String?, Int64).self) {
            rows[key] = (value, revision)
        }
        return rows.count
    }
}
