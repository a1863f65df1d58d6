import StowagePostgres
import StowageBenchmarkSupport

/// Group g: how a change reaches every server of a fleet of 1, 10 and 50,
/// and what each change costs the database, under a steady write load.
///
/// Process A writes with `setAndCommit` at 250 changes a second over 50
/// keys, as in group e. The servers are stores of their own (each with its
/// own pool and listening connection, as separate hosts would have), a few
/// to a process, each observing the namespace. A server takes a change from
/// the notice that names it, with one `SELECT` of the rows named; the
/// statements the database ran during the run, by every role's session, come
/// from `pg_stat_statements`. Each size runs first with the floor's servers,
/// ``PlainFleetServer``s that only listen and send that `SELECT`, so the
/// store's figures stand beside what the machine allows any server that
/// reads the rows a notice names. Each process also reports the processor time it
/// used while the writes reached it, per change and server in the notes.
struct FleetBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    static let perSecond = 250
    static let keys = 50
    /// Each server's `application_name` is this followed by its number.
    static let applicationName = "stowage-fleet"
    /// The goal for 50 servers: p99 from the write to every observer.
    static let target = 0.050

    func run() async throws -> ResultTable {
        // Each size first with the floor's servers, then with stores; the largest once more with the
        // database's opt-in, notices carrying values.
        let sizes = quick ? [1, 4] : [1, 10, 50]
        let levels: [(Int, FleetChild.Kind, Bool)] = sizes.flatMap { [($0, .plain, false), ($0, .store, false)] } + [(sizes.last ?? 1, .store, true)]
        let writes = quick ? 100 : 1_000
        let database = database
        let statementsMeasured = try await database.withClient { client in
            try await database.prepare(client: client)
            return try await Self.statementCounts(client) != nil
        }
        var table = ResultTable(
            title: "g. A change reaching every server of a fleet, \(Self.perSecond) changes a second",
            ratioHeading: "statements per change: all / the servers' reads", layout: .latency)
        var notes: [String] = []
        var floors: [Int: Outcome] = [:]
        for (level, kind, carriesValues) in levels {
            let outcome = try await run(servers: level, kind: kind, writes: writes, carriesValues: carriesValues)
            if kind == .plain { floors[level] = outcome }
            let perChange = outcome.statements.map { counts in
                "\(Format.significant(Double(counts.total) / Double(writes))) / \(Format.significant(Double(counts.reads) / Double(writes)))"
            }
            table.rows.append(
                .init(
                    name: (kind == .plain ? "floor: " : "")
                        + "\(level) \(kind == .plain ? "plain server" : "server")\(level == 1 ? "" : "s") in \(outcome.processes) process\(outcome.processes == 1 ? "" : "es")"
                        + (kind == .plain
                            ? " (plain PostgresClients: `LISTEN`, then the store's read of the keys named): from A's write to every server's read"
                            : ": from A's write to every server's observer")
                        + (carriesValues ? ", notices carrying values (`stowage.notices_carry_values = on`)" : ""),
                    p50: Format.duration(outcome.toEvery.median), p90: Format.duration(outcome.toEvery.percentile(90)),
                    p99: Format.duration(outcome.toEvery.percentile(99)), ratio: perChange ?? "not measured", samples: outcome.toEvery.count,
                    maximum: Format.duration(outcome.toEvery.maximum)))
            let processorTime = outcome.processorTimePerDelivery(writes: writes, servers: level)
            notes.append(
                "\(kind == .plain ? "Floor, " : "")\(level) server\(level == 1 ? "" : "s")\(carriesValues ? ", values in notices" : ""): each delivery p50 \(Format.duration(outcome.each.median)), p99 \(Format.duration(outcome.each.percentile(99))) over \(Format.grouped(outcome.each.count)) deliveries; "
                    + "the servers' processes used \(Format.duration(processorTime)) of processor time per change and server"
                    + (kind == .store && !carriesValues
                        ? floors[level].map { " (\(Format.ratio(processorTime, $0.processorTimePerDelivery(writes: writes, servers: level))) the floor's)" }
                            ?? "" : "")
                    + "; "
                    + "\(Format.grouped(outcome.toEvery.count)) of \(Format.grouped(writes)) writes were seen by every server (a server that read a newer value of the key first skips the older); "
                    + (outcome.statements.map {
                        "statements by kind: \($0.byKind.map { "\($0.key) \(Format.grouped($0.value))" }.sorted().joined(separator: ", "))"
                    } ?? "statements not measured")
                    + (kind == .store && !carriesValues
                        ? floors[level].map {
                            "; beside the floor's plain servers, to every server: p50 \(Format.ratio(outcome.toEvery.median, $0.toEvery.median)), p99 \(Format.ratio(outcome.toEvery.percentile(99), $0.toEvery.percentile(99)))"
                        } ?? "" : ""))
        }
        if let largest = sizes.last {
            let rows = table.rows.suffix(3).map {
                "\($0.p99)\($0.name.hasPrefix("floor") ? " for the floor's plain servers" : $0.name.contains("carrying values") ? " for stores with values in notices" : " for stores without")"
            }
            notes.append(
                "Goal: with \(largest) servers, p99 < \(Format.duration(Self.target)) from the write to every observer: \(rows.joined(separator: ", ")).")
        }
        notes.append(
            "Latency runs from just before A's write began (the commit falls inside it) to the moment the last server's observer fired (a floor's server: its read returned); each write counts once, when every server saw it. "
                + (statementsMeasured
                    ? "Statements are every call `pg_stat_statements` counted between the gate's opening and the last process's end, by every session, heartbeats and the writer's included, divided by the writes; the servers' reads are the store's `SELECT … WHERE key = ANY(…)`."
                    : "Statements were not measured: the server does not load pg_stat_statements."))
        table.notes = notes
        return table
    }

    private struct Outcome {
        var each = Samples()
        var toEvery = Samples()
        var processes = 0
        var statements: (total: Int, reads: Int, byKind: [String: Int])?
        /// The servers' processes' processor time, from the gate's opening until each had heard every write, in seconds.
        var serversProcessorTime = 0.0

        /// The servers' processor time per change and server, in seconds.
        func processorTimePerDelivery(writes: Int, servers: Int) -> Double { serversProcessorTime / Double(writes * servers) }
    }

    private func run(servers: Int, kind: FleetChild.Kind, writes: Int, carriesValues: Bool) async throws -> Outcome {
        let namespace = "bench-fleet-\(runIdentifier)-\(kind.rawValue)-\(servers)\(carriesValues ? "-values" : "")"
        let processes = min(servers, 5)
        var argumentLists = [
            PropagationChild.Plan(kind: .store, namespace: namespace, writes: writes, perSecond: Self.perSecond, keys: Self.keys, writer: "a", hears: nil)
                .arguments
        ]
        var first = 0
        for process in 0..<processes {
            let count = servers / processes + (process < servers % processes ? 1 : 0)
            argumentLists.append(
                FleetChild.arguments(kind: kind, namespace: namespace, servers: count, first: first, writes: writes, keys: Self.keys, writer: "a"))
            first += count
        }
        let database = database
        let lists = argumentLists
        // The writer's sessions opt in (an operator would, for the database: setting a parameter
        // PostgreSQL does not know takes a superuser there).
        let environment = carriesValues ? [BenchmarkDatabase.noticesCarryValuesVariable: "on"] : [:]
        let (outputs, statements) = try await database.withClient { client in
            // Spawning and the waits block, so they happen on a thread of their own, as in the other groups.
            let (children, readiness) = try await onThread {
                let children = try ChildProcesses(argumentLists: lists, extraEnvironment: environment)
                let readiness = Result { () throws(BenchmarkFailure) in try children.waitUntilReady() }
                return (children, readiness)
            }
            let before = try await Self.statementCounts(client)
            let outputs = try await onThread {
                var children = children
                children.start()
                return try children.finish()
            }
            try readiness.get()
            let after = try await Self.statementCounts(client)
            return (outputs, before.flatMap { before in after.map { Self.difference($0, before) } })
        }
        var outcome = Outcome(processes: processes, statements: statements)
        var starts: [String: UInt64] = [:]
        var heard: [String: [UInt64]] = [:]
        for output in outputs {
            guard output.hasPrefix("done") else { throw BenchmarkFailure("a child of the fleet group did not say done: \(output.prefix(200))") }
            for line in output.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count == 2, fields[0] == "cpu", let nanoseconds = UInt64(fields[1]) {
                    outcome.serversProcessorTime += Double(nanoseconds) / 1e9
                } else if fields.count == 4, fields[0] == "wrote", let start = UInt64(fields[2]) {
                    starts[String(fields[1])] = start
                } else if fields.count == 4, fields[0] == "heard", let at = UInt64(fields[3]) {
                    heard[String(fields[2]), default: []].append(at)
                } else {
                    throw BenchmarkFailure("a child of the fleet group reported \"\(line.prefix(80))\"")
                }
            }
        }
        guard starts.count == writes else { throw BenchmarkFailure("the fleet group's writer reported \(starts.count) writes, not \(writes)") }
        for (id, times) in heard {
            guard let start = starts[id] else { throw BenchmarkFailure("a fleet server heard \(id), which was not written") }
            let latencies = times.map { Timestamp(nanoseconds: $0).seconds(since: Timestamp(nanoseconds: start)) }
            guard latencies.allSatisfy({ $0 > 0 }) else { throw BenchmarkFailure("a fleet server heard \(id) before its write began") }
            for latency in latencies { outcome.each.append(latency) }
            if times.count == servers, let slowest = latencies.max() { outcome.toEvery.append(slowest) }
        }
        return outcome
    }

    /// Calls per statement kind so far, from `pg_stat_statements`; `nil` where the server does not load it.
    private static func statementCounts(_ client: PostgresClient) async throws -> [String: Int]? {
        do {
            for try await _ in try await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements") {}
            var counts: [String: Int] = [:]
            let rows = try await client.query("SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'")
            for try await (query, calls) in rows.decode((String, Int64).self) { counts[kind(of: query), default: 0] += Int(calls) }
            return counts
        } catch {
            return nil
        }
    }

    private static func difference(_ after: [String: Int], _ before: [String: Int]) -> (total: Int, reads: Int, byKind: [String: Int]) {
        var byKind: [String: Int] = [:]
        for (kind, calls) in after where calls - before[kind, default: 0] > 0 { byKind[kind] = calls - before[kind, default: 0] }
        return (byKind.values.reduce(0, +), byKind["read of changed rows"] ?? 0, byKind)
    }

    /// A short name for a statement's text.
    private static func kind(of query: String) -> String {
        if query.contains("= ANY") { return "read of changed rows" }
        if query.hasPrefix("INSERT") || query.hasPrefix("CALL") { return "write" }
        if query.hasPrefix("UPDATE") { return "update" }
        if query == "SELECT $1" || query == "SELECT 1" { return "SELECT 1" }
        if query.hasPrefix("LISTEN") { return "LISTEN" }
        if query.hasPrefix("SELECT key") { return "full read" }
        return "other"
    }
}
