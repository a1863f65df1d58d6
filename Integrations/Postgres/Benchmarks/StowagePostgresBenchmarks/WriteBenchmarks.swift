import StowagePostgres
import StowageBenchmarkSupport

/// Group b: how long a write takes to be committed, against the least a
/// committed write costs: one hand-written upsert through a plain client,
/// awaited, into the store's own table (same columns, index and revision
/// trigger), under a namespace of its own. Every figure includes the
/// server's commit, with fsync on.
///
/// A context row runs the store's own statement for a lone write by hand
/// (the `CALL` of its procedure that upserts, commits, and then returns the
/// revision), so what the store adds splits into its statement's cost and
/// its machinery's (queue, worker, thread hops).
/// Blocks of writes take the subjects in turn, so the server's state (dead
/// row versions, WAL segments) weighs on all of them alike.
struct WriteBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    private enum Subject: CaseIterable {
        case baseline, setAndCommit, setAndFlush, storeStatement

        var name: String {
            switch self {
            case .baseline: "hand-written upsert, plain PostgresClient, awaited — baseline"
            case .setAndCommit: "`try await store.setAndCommit(i, forKey:)`"
            case .setAndFlush: "`try store.set(i, forKey:)` + `try store.flush()` (own thread)"
            case .storeStatement:
                "context: the store's statement for a lone write (the `CALL` that upserts, commits, then answers), by hand, plain PostgresClient"
            }
        }

        /// Where the subject writes, each apart from the others.
        func namespace(_ base: String) -> String {
            switch self {
            case .baseline: "\(base)-baseline"
            case .setAndCommit, .setAndFlush: base
            case .storeStatement: "\(base)-statement"
            }
        }

        var key: String { self == .setAndFlush ? "written-sync" : "written" }
    }

    func run() async throws -> ResultTable {
        let writes = quick ? 200 : 2_000
        let blocks = quick ? 4 : 10
        let perBlock = writes / blocks
        let base = "bench-write-\(runIdentifier)"
        let database = database

        let (samples, last) = try await database.withClient { client in
            try await database.prepare(client: client)
            let store = try await database.openStore(namespace: base)
            var samples = [Samples](repeating: Samples(), count: Subject.allCases.count)
            var last = 0
            // Block 0 warms the connections and the statements up and is not kept.
            for block in 0...blocks {
                let first = block * perBlock
                let values = first..<(first + perBlock)
                for (index, subject) in Subject.allCases.enumerated() {
                    let round = try await Self.write(values, subject, namespace: subject.namespace(base), client: client, store: store)
                    if block > 0 { samples[index].append(contentsOf: round) }
                }
                last = values.upperBound - 1
            }
            // Each subject's last write is what the database holds.
            for subject in Subject.allCases {
                let text = try await BenchmarkDatabase.storedText(client: client, namespace: subject.namespace(base), key: subject.key)
                guard text == String(last) else {
                    throw BenchmarkFailure("after the writes, \(subject.namespace(base))/\(subject.key) holds \(text ?? "no row"), not \(last)")
                }
            }
            return (samples, last)
        }

        var table = ResultTable(title: "b. Write latency to commit", ratioHeading: "p50 / baseline p50")
        let baseline = samples[0]
        for (index, subject) in Subject.allCases.enumerated() {
            let run = samples[index]
            table.rows.append(
                .init(
                    name: subject.name, p50: Format.duration(run.median), p90: Format.duration(run.percentile(90)),
                    p99: Format.duration(run.percentile(99)), opsPerSecond: Double(run.count) / run.total,
                    ratio: index == 0 ? "baseline" : Format.ratio(run.median, baseline.median)))
        }
        table.notes = [
            "\(Format.grouped(baseline.count)) sequential writes per subject (after \(perBlock) warm-up writes each), in \(blocks) blocks of \(perBlock) taken in turn; ops/s is writes / total time, one at a time.",
            "After the run each subject's key holds its last value, \(last) (checked with a plain SELECT).",
        ]
        return table
    }

    /// Writes `values` in order the subject's way, timing each write to its commit.
    private static func write(
        _ values: Range<Int>, _ subject: Subject, namespace: String, client: PostgresClient, store: PostgresStore
    ) async throws -> Samples {
        var samples = Samples()
        let key = subject.key
        switch subject {
        case .baseline:
            for value in values {
                samples.append(
                    try await measureAsync {
                        let rows = try await client.query(
                            """
                            INSERT INTO stowage.entries (namespace, key, value) VALUES (\(namespace), \(key), \(String(value)))
                            ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = false
                            """)
                        for try await _ in rows {}
                    })
            }
        case .setAndCommit:
            for value in values {
                samples.append(try await measureAsync { try await store.setAndCommit(value, forKey: key) })
            }
        case .setAndFlush:
            // Synchronous code blocks its thread; a thread of its own, not one of the cooperative pool's two.
            samples = try await onThread {
                var samples = Samples()
                for value in values {
                    samples.append(
                        try measure {
                            try store.set(value, forKey: key)
                            try store.flush()
                        })
                }
                return samples
            }
        case .storeStatement:
            // The text of PostgresSchema.callWriteOneCommitted (internal to the store), as the store sends a lone write.
            for value in values {
                samples.append(
                    try await measureAsync {
                        let rows = try await client.query(
                            "CALL stowage.write_one_committed(\(namespace), \(key), \(String(value))::text, ''::text, NULL)",
                            logger: BenchmarkDatabase.silentLogger)
                        for try await _ in rows.decode(Int64.self) {}
                    })
            }
        }
        return samples
    }
}
