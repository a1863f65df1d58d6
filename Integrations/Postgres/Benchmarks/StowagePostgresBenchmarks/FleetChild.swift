import Foundation
import StowageLocking
import StowagePostgres
import StowageBenchmarkSupport

/// One process of the fleet group, hosting several servers of a fleet:
/// `__fleet-child store|plain <namespace> <servers> <first server> <writes> <keys> <writer>`.
///
/// Each server is a store of its own, with its own pool and its own
/// listening connection (a distinct `application_name` keeps stores from
/// sharing a listener), observing the namespace as a server would; or, for
/// the floor (`plain`), a ``PlainFleetServer`` on a plain client of its own.
/// Once every server receives changes it says "ready" and waits at the gate;
/// at the end, one `heard <server> <id> <monotonic ns>` line per id each
/// server's observer took, and `cpu <ns>`: the processor time the process
/// used from the gate's opening until every server had heard the last write.
enum FleetChild {
    static let subcommand = "__fleet-child"

    /// Which servers the child hosts.
    enum Kind: String, Sendable {
        case store, plain
    }

    static func arguments(kind: Kind, namespace: String, servers: Int, first: Int, writes: Int, keys: Int, writer: String) -> [String] {
        [subcommand, kind.rawValue, namespace, String(servers), String(first), String(writes), String(keys), writer]
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 7, let kind = Kind(rawValue: arguments[0]), let count = Int(arguments[2]), let first = Int(arguments[3]),
            let writes = Int(arguments[4]), let keys = Int(arguments[5]), keys > 0
        else {
            throw BenchmarkFailure("usage: \(subcommand) store|plain <namespace> <servers> <first server> <writes> <keys> <writer>")
        }
        let (namespace, writer) = (arguments[1], arguments[6])
        let plan = PropagationChild.Plan(
            kind: .store, namespace: namespace, writes: writes, perSecond: FleetBenchmarks.perSecond, keys: keys, writer: nil, hears: writer)
        let database = try BenchmarkDatabase.fromEnvironment()
        let servers = first..<(first + count)
        let lines =
            switch kind {
            case .store: try await runStores(servers, plan: plan, database: database)
            case .plain: try await runPlainServers(servers, plan: plan, database: database)
            }
        ParentChannel.say((["done"] + lines).joined(separator: "\n"))
    }

    /// The configuration of server `server`: its own `application_name`, so it shares no listener.
    private static func configuration(of server: Int, in database: BenchmarkDatabase) -> PostgresClient.Configuration {
        var configuration = database.configuration
        configuration.options.additionalStartupParameters = [("application_name", "\(FleetBenchmarks.applicationName)-\(server)")]
        return configuration
    }

    private static func runStores(_ servers: Range<Int>, plan: PropagationChild.Plan, database: BenchmarkDatabase) async throws -> [String] {
        let (namespace, writer, keys) = (plan.namespace, plan.hears ?? "", plan.keys)
        var stores: [(server: Int, store: PostgresStore, log: HearingLog, token: ObservationToken)] = []
        for server in servers {
            let store = try await BenchmarkDatabase(configuration: configuration(of: server, in: database)).openStore(namespace: namespace)
            let log = HearingLog(.ids(plan.lastIDs(of: writer)))
            let token = log.hear(Set((0..<keys).map { plan.key(of: writer, $0) }), on: store)
            stores.append((server, store, log, token))
        }
        for (_, store, _, _) in stores {
            _ = try await firstElement(of: store.statusUpdates(), within: .seconds(60), waitingFor: "every store to receive changes") { $0.receivesChanges }
        }
        try await ParentChannel.waitAtGateOffThePool()
        let processorTimeAtGate = ProcessorTime.nanoseconds()
        for (server, _, log, _) in stores {
            try await log.waitUntilComplete(within: plan.hearingTimeout, waitingFor: "the last write of every key to reach server \(server)")
        }
        var lines = ["cpu \(ProcessorTime.nanoseconds() - processorTimeAtGate)"]
        for (server, _, log, _) in stores {
            lines += log.reportLines.map { $0.replacingOccurrences(of: "heard ", with: "heard \(server) ") }
        }
        withExtendedLifetime(stores.map(\.token)) {}
        return lines
    }

    private static func runPlainServers(_ servers: Range<Int>, plan: PropagationChild.Plan, database: BenchmarkDatabase) async throws -> [String] {
        let writer = plan.hears ?? ""
        let hosted = servers.map { server in
            (
                server,
                PlainFleetServer(
                    configuration: configuration(of: server, in: database), namespace: plan.namespace, log: HearingLog(.ids(plan.lastIDs(of: writer))))
            )
        }
        let (listening, listens) = AsyncStream.makeStream(of: Int.self)
        let listeningCount = Locked(0)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (_, server) in hosted {
                group.addTask {
                    try await server.run {
                        listens.yield(
                            listeningCount.withLock {
                                $0 += 1; return $0
                            })
                    }
                }
            }
            defer { group.cancelAll() }
            _ = try await firstElement(of: listening, within: .seconds(60), waitingFor: "every plain server to listen") { $0 == hosted.count }
            try await ParentChannel.waitAtGateOffThePool()
            let processorTimeAtGate = ProcessorTime.nanoseconds()
            for (server, plain) in hosted {
                try await plain.log.waitUntilComplete(within: plan.hearingTimeout, waitingFor: "the last write of every key to reach server \(server)")
            }
            var lines = ["cpu \(ProcessorTime.nanoseconds() - processorTimeAtGate)"]
            for (server, plain) in hosted {
                lines += plain.log.reportLines.map { $0.replacingOccurrences(of: "heard ", with: "heard \(server) ") }
            }
            return lines
        }
    }
}
