import Foundation
import StowagePostgres
import StowageBenchmarkSupport

/// Group c: `modify` throughput when 1, 2, 4 and 8 processes all increment
/// one key of one namespace, against a floor: as many processes each
/// running `UPDATE … SET n = n + 1 WHERE id = 1`, one statement per
/// increment, autocommit, through a plain client.
///
/// The floor never retries: the server queues the updates on the row's
/// lock. The store's `modify` is a compare-and-swap on the row's revision,
/// so a process that lost the race reads the row again and tries anew; the
/// ratio is what that costs as the processes multiply. Every level makes
/// the same number of increments in all, split evenly.
struct ModifyBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    static let levels = [1, 2, 4, 8]
    /// Every process is a sanitized program in CI: two levels still race processes on one row.
    static let quickLevels = [1, 4]

    /// One level's run of one kind, from the gate's opening to the last child's end.
    struct LevelRun: Sendable {
        var wall: Double
        /// Every increment's latency, from all the children.
        var latencies: Samples
        /// How many times the children's `modify` closures ran (store), or statements (floor).
        var attempts: Int
        /// The most times one increment's closure ran.
        var mostAttempts: Int
        /// When the first child was done, from the gate's opening: far before `wall` when one process outran the others.
        var firstDone: Double
    }

    func run() async throws -> ResultTable {
        let increments = quick ? 80 : 4_000
        let database = database
        let results = try await database.withClient { client in
            var rows: [ResultTable.Row] = []
            var attempts: [String] = []
            var walls: [String] = []
            var finishes: [String] = []
            var versusTable: [String] = []
            try await database.prepare(client: client)
            try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(ModifyChild.floorTable) (id integer PRIMARY KEY, n bigint NOT NULL)"))
            for processes in quick ? Self.quickLevels : Self.levels {
                let each = increments / processes
                try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(ModifyChild.floorTable) VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0"))
                let floor = try await Self.runChildren(.floor, namespace: "-", processes: processes, each: each)
                var floorCount: Int64 = -1
                for try await n in try await client.query(PostgresQuery(unsafeSQL: "SELECT n FROM \(ModifyChild.floorTable) WHERE id = 1")).decode(Int64.self) {
                    floorCount = n
                }
                guard floorCount == Int64(increments) else {
                    throw BenchmarkFailure("floor with \(processes) processes: the counter is \(floorCount), not \(increments)")
                }

                let namespace = "bench-modify-\(runIdentifier)-\(processes)"
                let store = try await Self.runChildren(.store, namespace: namespace, processes: processes, each: each)
                let stored = try await BenchmarkDatabase.storedText(client: client, namespace: namespace, key: ModifyChild.key)
                guard stored == String(increments) else {
                    throw BenchmarkFailure(
                        "store with \(processes) processes: the counter holds \(stored ?? "no row"), not \(increments): an increment was lost or doubled")
                }

                // The floors on the store's own table, its index and triggers included: a row at 0 to start from.
                var onTable: [ModifyChild.Kind: LevelRun] = [:]
                for kind in [ModifyChild.Kind.swap, .update] {
                    let floorNamespace = "bench-modify-\(kind.rawValue)-\(runIdentifier)-\(processes)"
                    try await client.query(
                        "INSERT INTO stowage.entries (namespace, key, value) VALUES (\(floorNamespace), \(ModifyChild.key), '0') ON CONFLICT (namespace, key) DO UPDATE SET value = '0', removed = false"
                    )
                    onTable[kind] = try await Self.runChildren(kind, namespace: floorNamespace, processes: processes, each: each)
                    let counted = try await BenchmarkDatabase.storedText(client: client, namespace: floorNamespace, key: ModifyChild.key)
                    guard counted == String(increments) else {
                        throw BenchmarkFailure(
                            "\(kind.rawValue) floor with \(processes) processes: the counter holds \(counted ?? "no row"), not \(increments)")
                    }
                }
                let swap = onTable[.swap]!, update = onTable[.update]!

                let label = processes == 1 ? "1 process" : "\(processes) processes"
                let floorRate = Double(increments) / floor.wall
                let storeRate = Double(increments) / store.wall
                let swapRate = Double(increments) / swap.wall
                let updateRate = Double(increments) / update.wall
                rows.append(Self.row("floor: `UPDATE t SET n = n + 1 WHERE id = 1`, \(label) — baseline", floor, rate: floorRate, ratio: "baseline"))
                rows.append(
                    Self.row(
                        "floor on the store's table: its compare-and-swap by hand (`UPDATE … WHERE revision = $4`, read again on a miss), \(label)", swap,
                        rate: swapRate, ratio: Format.ratio(swapRate, floorRate)))
                rows.append(
                    Self.row(
                        "floor on the store's table: server-side `UPDATE … SET value = (value::bigint + 1)::text`, \(label)", update, rate: updateRate,
                        ratio: Format.ratio(updateRate, floorRate)))
                rows.append(
                    Self.row("store: `reference.modify { $0 = ($0 ?? 0) + 1 }`, \(label)", store, rate: storeRate, ratio: Format.ratio(storeRate, floorRate)))
                versusTable.append(
                    "\(processes): \(Format.ratio(storeRate, swapRate)) of the compare-and-swap floor, \(Format.ratio(storeRate, updateRate)) of the server-side update (compare-and-swap floor tries per increment \(String(format: "%.2f", Double(swap.attempts) / Double(increments))))"
                )
                attempts.append("\(processes): \(String(format: "%.2f", Double(store.attempts) / Double(increments))) (most for one: \(store.mostAttempts))")
                if processes > 1 {
                    finishes.append(
                        "\(processes): store \(Format.seconds(store.firstDone)) of \(Format.seconds(store.wall)), floor \(Format.seconds(floor.firstDone)) of \(Format.seconds(floor.wall))"
                    )
                }
                walls.append("\(processes): store \(Format.seconds(store.wall)), floor \(Format.seconds(floor.wall))")
            }
            return (rows: rows, attempts: attempts, walls: walls, finishes: finishes, versusTable: versusTable)
        }
        var table = ResultTable(title: "c. `modify` throughput, processes incrementing one key", ratioHeading: "store ops/s / floor ops/s", rows: results.rows)
        table.notes = [
            "\(Format.grouped(increments)) increments per level in all, split evenly between the processes; p50/p90/p99 are of single increments, from every process; ops/s is increments / wall-clock time from the gate's opening (every process connected and waiting) to the last process's end.",
            "Wall-clock times: \(results.walls.joined(separator: "; ")).",
            "Store `modify` closure runs per increment (compare-and-swap attempts), by processes: \(results.attempts.joined(separator: ", ")).",
            "First process done, of the wall-clock time, by processes (an even race ends together): \(results.finishes.joined(separator: "; ")).",
            "The store's ops/s beside the floors on its own table, by processes: \(results.versusTable.joined(separator: "; ")).",
            "Every final counter equalled the number of increments (checked with a plain SELECT after each run).",
        ]
        return table
    }

    private static func row(_ name: String, _ run: LevelRun, rate: Double, ratio: String) -> ResultTable.Row {
        .init(
            name: name, p50: Format.duration(run.latencies.median), p90: Format.duration(run.latencies.percentile(90)),
            p99: Format.duration(run.latencies.percentile(99)), opsPerSecond: rate, ratio: ratio)
    }

    /// Starts `processes` children, opens the gate once all are connected, and collects what they report.
    private static func runChildren(_ kind: ModifyChild.Kind, namespace: String, processes: Int, each: Int) async throws -> LevelRun {
        let arguments = [ModifyChild.subcommand, kind.rawValue, namespace, String(each)]
        // Spawning, the gate and the waits all happen on this one thread.
        return try await onThread {
            var children = try ChildProcesses(argumentLists: Array(repeating: arguments, count: processes))
            let readiness = Result { () throws(BenchmarkFailure) in try children.waitUntilReady() }
            let start = Timestamp.now()
            children.start()
            let outputs = try children.finish()
            try readiness.get()

            var end = start
            var latencies = Samples()
            var attempts = 0
            var mostAttempts = 0
            var firstDone: Timestamp?
            for output in outputs {
                let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
                let done = lines.first?.split(separator: " ") ?? []
                guard done.count == 4, done[0] == "done", let finished = UInt64(done[1]), let tries = Int(done[2]), let most = Int(done[3]), lines.count >= 2
                else {
                    throw BenchmarkFailure("a \(kind.rawValue) child reported \"\(output.prefix(80))\", not done <ns> <attempts> <most> and its latencies")
                }
                let times = lines[1].split(separator: " ").compactMap { UInt64($0) }
                guard times.count == each else { throw BenchmarkFailure("a \(kind.rawValue) child reported \(times.count) latencies, not \(each)") }
                end = max(end, Timestamp(nanoseconds: finished))
                firstDone = min(firstDone ?? Timestamp(nanoseconds: finished), Timestamp(nanoseconds: finished))
                attempts += tries
                mostAttempts = max(mostAttempts, most)
                for time in times { latencies.append(Double(time) / 1e9) }
            }
            return LevelRun(
                wall: end.seconds(since: start), latencies: latencies, attempts: attempts, mostAttempts: mostAttempts,
                firstDone: (firstDone ?? end).seconds(since: start))
        }
    }
}
