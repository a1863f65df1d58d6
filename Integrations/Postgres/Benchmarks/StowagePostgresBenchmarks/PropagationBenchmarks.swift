import StowagePostgres
import StowageBenchmarkSupport

/// Group e: how soon a change committed in one process reaches an observer
/// in another, under a steady write load, against the floor: a plain
/// `pg_notify` heard by a plain `LISTEN`, between the same two processes.
///
/// Process A writes at a set pace over a set of keys; process B observes.
/// Each value names its write, and both processes stamp on the monotonic
/// clock they share: A just before the write begins, B when its observer
/// fires. The parent pairs the stamps up. The commit happens inside the
/// write, so the figure is an upper bound on commit-to-observer latency; a
/// second figure, from the moment the write returned, is a lower bound
/// (it can be negative: the notice can beat the reply).
struct PropagationBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    /// A few hundred changes a second, spread so a key is rewritten every 200 ms.
    static let perSecond = 250
    static let keys = 50
    /// What pushed changes aim for, in seconds: each row of the store is checked against them in the notes.
    static let targets = (p50: 0.005, p99: 0.050)

    private enum Subject: CaseIterable {
        case floor, tableTrigger, store, storeBothWays

        var name: String {
            switch self {
            case .floor: "floor: `SELECT pg_notify(…)` in A → plain `LISTEN` in B, plain PostgresClients — baseline"
            case .tableTrigger: "context: upsert into the store's table in A (its trigger notifies) → plain `LISTEN` in B"
            case .store: "`try await store.setAndCommit(…)` in A → `store.observe { … }` in B"
            case .storeBothWays: "the same, both ways: A and B each write and observe the other's writes"
            }
        }

        /// The subject's name in the notes.
        var label: String {
            switch self {
            case .floor: "floor"
            case .tableTrigger: "table trigger"
            case .store: "store"
            case .storeBothWays: "both ways"
            }
        }

        /// The children, A then B.
        func plans(namespace: String, writes: Int) -> [PropagationChild.Plan] {
            func plan(_ kind: PropagationChild.Kind, writer: String?, hears: String?) -> PropagationChild.Plan {
                .init(
                    kind: kind, namespace: namespace, writes: writes, perSecond: PropagationBenchmarks.perSecond, keys: PropagationBenchmarks.keys,
                    writer: writer, hears: hears)
            }
            switch self {
            case .floor: return [plan(.notify, writer: "a", hears: nil), plan(.notify, writer: nil, hears: "a")]
            case .tableTrigger: return [plan(.upsert, writer: "a", hears: nil), plan(.upsert, writer: nil, hears: "a")]
            case .store: return [plan(.store, writer: "a", hears: nil), plan(.store, writer: nil, hears: "a")]
            case .storeBothWays: return [plan(.store, writer: "a", hears: "b"), plan(.store, writer: "b", hears: "a")]
            }
        }

        /// Whether every write must be heard: a notice is never merged; a store's observer
        /// may find a key already rewritten when it reads it.
        var hearsEveryWrite: Bool { self == .floor || self == .tableTrigger }
    }

    /// What one subject's runs gave, pooled.
    private struct Outcome {
        var fromStart = Samples()
        var fromReturn = Samples()
        /// How long each heard write took in A, from its start to its return.
        var writing = Samples()
        var writes = 0
        /// The slowest pace a writer kept over its run (writes / the time from its first to its last), per second.
        var slowestPace = Double.infinity
    }

    func run() async throws -> ResultTable {
        let rounds = quick ? 1 : 2
        let writes = quick ? 100 : 1_000
        let database = database
        // The tables exist before the children race to open their stores.
        try await database.withClient { client in try await database.prepare(client: client) }

        var outcomes = [Outcome](repeating: Outcome(), count: Subject.allCases.count)
        for round in 0..<rounds {
            for (index, subject) in Subject.allCases.enumerated() {
                let namespace = "bench-propagation-\(runIdentifier)-\(index)-\(round)"
                try await Self.run(subject, plans: subject.plans(namespace: namespace, writes: writes), into: &outcomes[index])
            }
        }

        var table = ResultTable(title: "e. Propagation of a change to another process", ratioHeading: "p50 / baseline p50", layout: .latency)
        let baseline = outcomes[0].fromStart.median
        for (index, subject) in Subject.allCases.enumerated() {
            let run = outcomes[index].fromStart
            table.rows.append(
                .init(
                    name: subject.name, p50: Format.duration(run.median), p90: Format.duration(run.percentile(90)), p99: Format.duration(run.percentile(99)),
                    ratio: index == 0 ? "baseline" : Format.ratio(run.median, baseline), samples: run.count, maximum: Format.duration(run.maximum)))
        }
        let store = outcomes[2].fromStart
        let both = outcomes[3].fromStart
        func verdict(_ samples: Samples) -> String {
            let p50 = samples.median < Self.targets.p50 ? "met" : "MISSED"
            let p99 = samples.percentile(99) < Self.targets.p99 ? "met" : "MISSED"
            return "p50 < \(Format.duration(Self.targets.p50)) \(p50), p99 < \(Format.duration(Self.targets.p99)) \(p99)"
        }
        let lowerBounds = zip(Subject.allCases, outcomes).map { subject, outcome in
            let run = outcome.fromReturn
            return "\(subject.label) \(Format.duration(run.median)) / \(Format.duration(run.percentile(99))) / \(Format.duration(run.maximum))"
        }
        let writing = zip(Subject.allCases, outcomes).map { "\($0.label) \(Format.duration($1.writing.median))" }
        table.notes = [
            "Each run: A writes \(Format.grouped(writes)) values at \(Self.perSecond) a second over \(Self.keys) keys (both ways: each process does); \(rounds) run\(rounds == 1 ? "" : "s") per subject, the subjects in turn; new processes and a new namespace for each run. Every sample is kept, the first writes of a process included.",
            "Latency from just before A's write began to B's observer (or notice loop) taking it, on the monotonic clock both processes share: an upper bound on commit-to-observer, since the commit falls inside the write.",
            "From the moment the write returned instead (a lower bound, negative when the notice beat the reply), p50 / p99 / max: \(lowerBounds.joined(separator: "; ")).",
            "The write itself in A, from its start to its return, p50: \(writing.joined(separator: "; ")).",
            "Targets for the store: one way \(verdict(store)); both ways \(verdict(both)). The store's p50 is \(Format.duration(store.median - baseline)) above the floor's one way, \(Format.duration(both.median - baseline)) both ways.",
            "Writes per subject, and the samples they gave: \(outcomes.map { "\(Format.grouped($0.writes)) → \(Format.grouped($0.fromStart.count))" }.joined(separator: ", ")). A plain listener heard every write (checked); a store's observer may find a key rewritten before it reads it, and then hears only the newer value. Every key's last write was heard (checked).",
            "The slowest pace a writer kept, in writes a second: \(outcomes.map { Format.significant($0.slowestPace) }.joined(separator: ", ")) (set: \(Self.perSecond)).",
        ]
        return table
    }

    /// Starts the children, opens the gate once all are receiving, and pairs what they wrote with what they heard.
    private static func run(_ subject: Subject, plans: [PropagationChild.Plan], into outcome: inout Outcome) async throws {
        let outputs = try await onThread {
            var children = try ChildProcesses(argumentLists: plans.map(\.arguments))
            let readiness = Result { () throws(BenchmarkFailure) in try children.waitUntilReady() }
            children.start()
            let outputs = try children.finish()
            try readiness.get()
            return outputs
        }
        var wrote: [String: (start: UInt64, returned: UInt64)] = [:]
        var heard: [(id: String, at: UInt64)] = []
        for (plan, output) in zip(plans, outputs) {
            var starts: [UInt64] = []
            for line in output.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count == 4, fields[0] == "wrote", let start = UInt64(fields[2]), let returned = UInt64(fields[3]) {
                    wrote[String(fields[1])] = (start, returned)
                    starts.append(start)
                } else if fields.count == 3, fields[0] == "heard", let at = UInt64(fields[2]) {
                    heard.append((String(fields[1]), at))
                } else {
                    throw BenchmarkFailure("a \(plan.kind.rawValue) child of the propagation group reported \"\(line.prefix(80))\"")
                }
            }
            guard output.hasPrefix("done") else { throw BenchmarkFailure("a \(plan.kind.rawValue) child of the propagation group did not say done") }
            if plan.writer != nil {
                guard starts.count == plan.writes else {
                    throw BenchmarkFailure("a \(plan.kind.rawValue) writer reported \(starts.count) writes, not \(plan.writes)")
                }
                outcome.writes += starts.count
                if let first = starts.min(), let last = starts.max(), last > first {
                    outcome.slowestPace = min(
                        outcome.slowestPace, Double(starts.count - 1) / Timestamp(nanoseconds: last).seconds(since: Timestamp(nanoseconds: first)))
                }
            }
        }
        if subject.hearsEveryWrite, heard.count != wrote.count {
            throw BenchmarkFailure("\(subject.name): \(heard.count) notices heard for \(wrote.count) writes")
        }
        for (id, at) in heard {
            guard let write = wrote[id] else { throw BenchmarkFailure("\(subject.name): heard \(id), which no writer reported") }
            let fromStart = Timestamp(nanoseconds: at).seconds(since: Timestamp(nanoseconds: write.start))
            guard fromStart > 0 else {
                throw BenchmarkFailure("\(subject.name): \(id) was heard \(Format.duration(-fromStart)) before its write began: the processes' clocks disagree")
            }
            outcome.fromStart.append(fromStart)
            outcome.fromReturn.append(Timestamp(nanoseconds: at).seconds(since: Timestamp(nanoseconds: write.returned)))
            outcome.writing.append(Timestamp(nanoseconds: write.returned).seconds(since: Timestamp(nanoseconds: write.start)))
        }
    }
}
