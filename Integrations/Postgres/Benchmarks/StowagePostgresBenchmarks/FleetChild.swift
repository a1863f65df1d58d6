import Foundation
import StowagePostgres
import StowageBenchmarkSupport

/// One process of the fleet group, hosting several servers of a fleet:
/// `__fleet-child <namespace> <servers> <first server> <writes> <keys> <writer>`.
///
/// Each server is a store of its own, with its own pool and its own
/// listening connection (a distinct `application_name` keeps stores from
/// sharing a listener), observing the namespace as a server would. Once
/// every store receives changes it says "ready" and waits at the gate; at
/// the end, one `heard <server> <id> <monotonic ns>` line per id each
/// server's observer took.
enum FleetChild {
    static let subcommand = "__fleet-child"

    static func arguments(namespace: String, servers: Int, first: Int, writes: Int, keys: Int, writer: String) -> [String] {
        [subcommand, namespace, String(servers), String(first), String(writes), String(keys), writer]
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 6, let servers = Int(arguments[1]), let first = Int(arguments[2]), let writes = Int(arguments[3]),
            let keys = Int(arguments[4]), keys > 0
        else {
            throw BenchmarkFailure("usage: \(subcommand) <namespace> <servers> <first server> <writes> <keys> <writer>")
        }
        let (namespace, writer) = (arguments[0], arguments[5])
        let plan = PropagationChild.Plan(
            kind: .store, namespace: namespace, writes: writes, perSecond: FleetBenchmarks.perSecond, keys: keys, writer: nil, hears: writer)
        let database = try BenchmarkDatabase.fromEnvironment()
        var stores: [(server: Int, store: PostgresStore, log: HearingLog, token: ObservationToken)] = []
        for server in first..<(first + servers) {
            var configuration = database.configuration
            configuration.options.additionalStartupParameters = [("application_name", "\(FleetBenchmarks.applicationName)-\(server)")]
            let store = try await BenchmarkDatabase(configuration: configuration).openStore(namespace: namespace)
            let log = HearingLog(.ids(plan.lastIDs(of: writer)))
            let token = log.hear(Set((0..<keys).map { plan.key(of: writer, $0) }), on: store)
            stores.append((server, store, log, token))
        }
        for (_, store, _, _) in stores {
            _ = try await firstElement(of: store.statusUpdates(), within: .seconds(60), waitingFor: "every store to receive changes") { $0.receivesChanges }
        }
        try await ParentChannel.waitAtGateOffThePool()
        var lines: [String] = []
        for (server, _, log, _) in stores {
            try await log.waitUntilComplete(within: plan.hearingTimeout, waitingFor: "the last write of every key to reach server \(server)")
            lines += log.reportLines.map { $0.replacingOccurrences(of: "heard ", with: "heard \(server) ") }
        }
        withExtendedLifetime(stores.map(\.token)) {}
        ParentChannel.say((["done"] + lines).joined(separator: "\n"))
    }
}
