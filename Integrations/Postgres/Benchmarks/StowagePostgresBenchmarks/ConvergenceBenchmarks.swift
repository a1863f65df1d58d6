import StowagePostgres
import StowageBenchmarkSupport

/// Group f: how long a process takes to converge after its listening
/// connection is cut, while another process keeps writing.
///
/// Process A writes at a steady pace; process B watches (see
/// ``ConvergenceChild``). Once B is steady, the parent terminates every
/// connection named `stowage listener` (B's is the only one: A does not
/// listen, nor does the parent), as the benchmark's own role, and stamps
/// the moment just before it asks. B notes when its status says it no
/// longer receives changes, when it does again, and when it holds every
/// value the table held just after that; it says so once pushed changes
/// reach it again, and the parent cuts it again.
///
/// The floor is what any reconnection costs at least, with no pause
/// before it: a new plain client connects, selects the namespace's rows
/// and `LISTEN`s, measured by the parent after each recovery.
struct ConvergenceBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    static let perSecond = 250
    static let keys = 50
    static let terminateListeners =
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'stowage listener' AND pid <> pg_backend_pid()"

    /// One cut, timed from the moment just before the parent asked for it.
    private struct Recovery {
        var lost: Double
        var receiving: Double
        var caughtUp: Double
        var terminated: Int
    }

    func run() async throws -> ResultTable {
        let repetitions = quick ? 2 : 10
        let namespace = "bench-convergence-\(runIdentifier)"
        let database = database
        let (recoveries, floor, writes) = try await database.withClient { client in
            try await database.prepare(client: client)
            let children = try ChildProcesses(argumentLists: [
                [ConvergenceChild.subcommand, "writer", namespace, String(Self.perSecond), String(Self.keys)],
                [ConvergenceChild.subcommand, "watcher", namespace, String(Self.keys)],
            ])
            var recoveries: [Recovery] = []
            var floor = Samples()
            do {
                try await onThread { try children.waitUntilReady() }
                for _ in 0..<repetitions {
                    recoveries.append(try await Self.cutAndWait(children, client: client))
                    floor.append(try await Self.reconnectPlainly(database, namespace: namespace))
                }
            } catch {
                // The gate's closing stops both children; reap them before reporting the failure.
                _ = try? await onThread {
                    var ending = children; return try ending.finish()
                }
                throw error
            }
            let outputs = try await onThread {
                var ending = children; return try ending.finish()
            }
            guard outputs[1].hasPrefix("done"), outputs[0].hasPrefix("done "), let writes = Int(outputs[0].dropFirst(5).prefix { $0.isNumber }) else {
                throw BenchmarkFailure("the convergence group's children ended with \"\(outputs[0].prefix(40))\" and \"\(outputs[1].prefix(40))\", not done")
            }
            return (recoveries, floor, writes)
        }

        var table = ResultTable(title: "f. Convergence after the listening connection is terminated", ratioHeading: "p50 / floor p50", layout: .latency)
        let subjects: [(String, Samples)] = [
            ("floor: a new plain client connects, `SELECT`s the namespace, `LISTEN`s — baseline", floor),
            ("termination → B's `status.receivesChanges` is true again", Samples(recoveries.map(\.receiving))),
            ("termination → B holds every value the table holds", Samples(recoveries.map(\.caughtUp))),
            ("context: termination → B's status says it no longer receives changes", Samples(recoveries.map(\.lost))),
        ]
        for (index, (name, samples)) in subjects.enumerated() {
            table.rows.append(
                .init(
                    name: name, p50: Format.duration(samples.median), ratio: index == 0 ? "baseline" : Format.ratio(samples.median, floor.median),
                    samples: samples.count, maximum: Format.duration(samples.maximum)))
        }
        let defaults = PostgresStore.Options()
        table.notes = [
            "\(repetitions) terminations, each once B was steady (it had heard \(ConvergenceChild.changesHeardWhenSteady) changes since the last one); p50 is the median. Meanwhile A wrote \(Self.perSecond) values a second over \(Self.keys) keys, \(Format.grouped(writes)) in all.",
            "Terminated with `\(Self.terminateListeners)`, as the role `stowage`, from the parent; the number of connections it ended each time: \(Set(recoveries.map(\.terminated)).sorted().map(String.init).joined(separator: " or ")) (B's listener: A and the parent do not listen).",
            "\"Holds every value\": for every key, B's value is at least as new as the one a `SELECT` made after B's status said it received changes again found (checked each time; so the figure includes that round trip).",
            "Before listening again the listener waits a pause drawn at random up to \(Format.duration(defaults.initialRetryDelay)) (`initialRetryDelay`, the default).",
        ]
        return table
    }

    /// Terminates the listening connections and waits until the watcher has recovered.
    private static func cutAndWait(_ children: ChildProcesses, client: PostgresClient) async throws -> Recovery {
        let start = Timestamp.now()
        var terminated = 0
        for try await ended in try await client.query(PostgresQuery(unsafeSQL: terminateListeners)).decode(Bool.self) where ended { terminated += 1 }
        guard terminated >= 1 else { throw BenchmarkFailure("found no connection named 'stowage listener' to terminate: B's store does not listen") }
        let line = try await onThread { children.readLine(fromChild: 1) }
        let fields = line?.split(separator: " ").compactMap { UInt64($0) } ?? []
        guard let line, line.hasPrefix("recovered "), fields.count == 3 else {
            throw BenchmarkFailure(
                "the watcher said \(line.map { "\"\($0)\"" } ?? "nothing") after its listening connection was terminated, not recovered <ns> <ns> <ns>; its error is above"
            )
        }
        let times = fields.map { Timestamp(nanoseconds: $0).seconds(since: start) }
        guard times[0] > 0 else { throw BenchmarkFailure("the watcher lost its listening connection before the benchmark terminated it") }
        return Recovery(lost: times[0], receiving: times[1], caughtUp: times[2], terminated: terminated)
    }

    /// The least a reconnection costs: a new connection (TCP and SCRAM), the
    /// namespace's rows and `LISTEN`, on one connection of a new client.
    private static func reconnectPlainly(_ database: BenchmarkDatabase, namespace: String) async throws -> Double {
        try await database.withClient { client in
            // Timed inside, so the client's shutdown is not counted; its first query makes the connection.
            try await measureAsync {
                let rows = try await client.query("SELECT key, value, revision FROM stowage.entries WHERE namespace = \(namespace)")
                for try await _ in rows.decode((String, String?, Int64).self) {}
                try await client.withConnection { connection in
                    try await connection.listen(on: PropagationChild.floorChannel) { _ in }
                }
            }
        }
    }
}
