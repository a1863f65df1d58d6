import Foundation
import StowagePostgres
import StowageBenchmarkSupport

/// One process of the propagation group, started by ``ChildProcesses`` with
/// a hidden subcommand:
/// `__propagation-child store|notify|upsert <namespace> <writes> <per-second> <keys> <writes-as>|- <hears>|-`.
///
/// A writer (`<writes-as>` names it) writes `<writes>` values at a steady
/// pace over `<keys>` keys, each value naming its write (`a-17`, its id). A
/// hearer (`<hears>` names the writer it waits for) notes when each id
/// reaches it. A store child may do both. Once connected and receiving
/// changes it says "ready" and waits at the gate; at the end it writes one
/// `wrote <id> <ns before the write> <ns after it returned>` line per write
/// and one `heard <id> <ns>` line per id heard, on the monotonic clock
/// every process shares, for the parent to pair up.
enum PropagationChild {
    static let subcommand = "__propagation-child"

    enum Kind: String, Sendable {
        /// `try await store.setAndCommit(id, forKey:)`, heard by `store.observe { change in … }`.
        case store
        /// The floor: `SELECT pg_notify(channel, id)` through a plain client, heard by a plain `LISTEN`.
        case notify
        /// An upsert into the store's table through a plain client; its trigger notifies the
        /// stores' channel, which a plain `LISTEN` hears. The id is the row's new revision.
        case upsert
    }

    /// The floor's channel, apart from the stores' own.
    static let floorChannel = "stowage_benchmark_floor"

    struct Plan: Sendable {
        let kind: Kind
        let namespace: String
        let writes: Int
        let perSecond: Int
        let keys: Int
        /// The writer's name, prefix of its keys and ids; `nil`: this process does not write.
        let writer: String?
        /// The writer whose ids this process waits for; `nil`: it does not listen.
        let hears: String?

        var arguments: [String] {
            [PropagationChild.subcommand, kind.rawValue, namespace, String(writes), String(perSecond), String(keys), writer ?? "-", hears ?? "-"]
        }

        /// How long the writes take on schedule, plus ample time for a loaded machine.
        var hearingTimeout: Duration { .seconds(writes / max(1, perSecond) + 30) }

        func key(of writer: String, _ index: Int) -> String { "\(writer).key-\(index % keys)" }
        func id(of writer: String, _ index: Int) -> String { "\(writer)-\(index)" }

        /// The ids of each key's last write, which no later write can hide.
        func lastIDs(of writer: String) -> Set<String> {
            Set((max(0, writes - keys)..<writes).map { id(of: writer, $0) })
        }
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 7, let kind = Kind(rawValue: arguments[0]), let writes = Int(arguments[2]), let perSecond = Int(arguments[3]),
            let keys = Int(arguments[4]), keys > 0
        else {
            throw BenchmarkFailure("usage: \(subcommand) store|notify|upsert <namespace> <writes> <per-second> <keys> <writes-as>|- <hears>|-")
        }
        let plan = Plan(
            kind: kind, namespace: arguments[1], writes: writes, perSecond: perSecond, keys: keys,
            writer: arguments[5] == "-" ? nil : arguments[5], hears: arguments[6] == "-" ? nil : arguments[6])
        let database = try BenchmarkDatabase.fromEnvironment()
        let lines: [String]
        switch (kind, plan.hears) {
        case (.store, _): lines = try await runStore(plan, database: database)
        case (.notify, nil), (.upsert, nil): lines = try await writePlainly(plan, database: database)
        case (.notify, _?), (.upsert, _?): lines = try await listenPlainly(plan, database: database)
        }
        ParentChannel.say((["done"] + lines).joined(separator: "\n"))
    }

    // MARK: The store

    private static func runStore(_ plan: Plan, database: BenchmarkDatabase) async throws -> [String] {
        let store = try await database.openStore(namespace: plan.namespace)
        var log: HearingLog?
        var observation: ObservationToken?
        if let peer = plan.hears {
            let hearing = HearingLog(.ids(plan.lastIDs(of: peer)))
            observation = hearing.hear(Set((0..<plan.keys).map { plan.key(of: peer, $0) }), on: store)
            log = hearing
        }
        _ = try await firstElement(of: store.statusUpdates(), within: .seconds(30), waitingFor: "the store to receive changes") { $0.receivesChanges }
        try await ParentChannel.waitAtGateOffThePool()

        var wrote: [String] = []
        if let writer = plan.writer {
            let pace = WritePace(perSecond: plan.perSecond)
            wrote.reserveCapacity(plan.writes)
            for index in 0..<plan.writes {
                try await pace.waitForTurn(index)
                let id = plan.id(of: writer, index)
                // Stamped before the write begins: the commit happens somewhere inside it, so the
                // latency from here includes the whole commit and can not be flattered.
                let start = Timestamp.now()
                try await store.setAndCommit(id, forKey: plan.key(of: writer, index))
                wrote.append("wrote \(id) \(start.nanoseconds) \(Timestamp.now().nanoseconds)")
            }
        }
        if let log {
            try await log.waitUntilComplete(within: plan.hearingTimeout, waitingFor: "the last write of every key of \(plan.hears ?? "") to reach the observer")
        }
        withExtendedLifetime(observation) {}
        return wrote + (log?.reportLines ?? [])
    }

    // MARK: Plain clients

    private static func writePlainly(_ plan: Plan, database: BenchmarkDatabase) async throws -> [String] {
        guard let writer = plan.writer else { return [] }
        return try await database.withClient { client in
            for try await _ in try await client.query("SELECT 1") {}  // connected before the gate
            try await ParentChannel.waitAtGateOffThePool()
            let pace = WritePace(perSecond: plan.perSecond)
            var wrote: [String] = []
            wrote.reserveCapacity(plan.writes)
            for index in 0..<plan.writes {
                try await pace.waitForTurn(index)
                var id = plan.id(of: writer, index)
                let start = Timestamp.now()
                switch plan.kind {
                case .notify:
                    for try await _ in try await client.query("SELECT pg_notify(\(floorChannel), \(id))") {}
                case .upsert, .store:
                    let key = plan.key(of: writer, index)
                    let value = "\"\(id)\""
                    let rows = try await client.query(
                        """
                        INSERT INTO stowage.entries (namespace, key, value) VALUES (\(plan.namespace), \(key), \(value))
                        ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = false
                        RETURNING revision
                        """)
                    for try await revision in rows.decode(Int64.self) { id = String(revision) }
                }
                wrote.append("wrote \(id) \(start.nanoseconds) \(Timestamp.now().nanoseconds)")
            }
            return wrote
        }
    }

    private static func listenPlainly(_ plan: Plan, database: BenchmarkDatabase) async throws -> [String] {
        let log = HearingLog(.count(plan.writes))
        let channel = plan.kind == .notify ? floorChannel : BenchmarkDatabase.storeSchema
        try await database.withClient { client in
            try await client.withConnection { connection in
                try await connection.listen(on: channel) { notices in
                    try await ParentChannel.waitAtGateOffThePool()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notice in notices {
                                let now = Timestamp.now()
                                if let id = plan.kind == .notify ? notice.payload : revision(in: notice.payload, namespace: plan.namespace) {
                                    log.record([id], at: now)
                                }
                            }
                        }
                        group.addTask {
                            try await log.waitUntilComplete(within: plan.hearingTimeout, waitingFor: "\(plan.writes) notices on \(channel)")
                        }
                        defer { group.cancelAll() }
                        // Whichever ends first: the log complete, or the notices failing.
                        try await group.next()
                    }
                }
            }
        }
        return log.reportLines
    }

    /// The revision a notice of the stores' trigger names, if it concerns `namespace`.
    private static func revision(in payload: String, namespace: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
            object["namespace"] as? String == namespace, let revision = object["revision"] as? Int
        else { return nil }
        return String(revision)
    }
}
