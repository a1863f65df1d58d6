#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import StowagePostgres

/// What the figures were measured on, printed first: they mean little without it.
struct MachineDescription: Sendable {
    var lines: [String]

    static func read(client: PostgresClient, options: RunOptions) async throws -> MachineDescription {
        var settings: [String] = []
        for name in ["server_version", "fsync", "synchronous_commit", "wal_sync_method"] {
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT current_setting('\(name)')"))
            for try await value in rows.decode(String.self) { settings.append("\(name) \(value)") }
        }
        let host = ProcessInfo.processInfo
        // Scripts/benchmark.sh names the commit; run by hand, the binary does not know it.
        let commit = host.environment["STOWAGE_BENCHMARK_COMMIT"] ?? "unknown (run Scripts/benchmark.sh)"
        return MachineDescription(lines: [
            "Run: \(options.quick ? "--quick" : "full"), groups \(options.groups.map(\.rawValue).joined(separator: ", ")), run \(runIdentifier), commit \(commit)",
            "Machine: \(host.activeProcessorCount) cores, \(host.physicalMemory >> 30) GiB, \(host.operatingSystemVersionString); load average \(loadAverage())",
            "Server: PostgreSQL on loopback TCP without TLS; \(settings.joined(separator: ", "))",
        ])
    }

    var markdown: String { "# StowagePostgres benchmarks\n\n" + lines.map { "- \($0)" }.joined(separator: "\n") + "\n" }

    /// The 1, 5 and 15 minute load averages: a busy machine makes the figures worthless.
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "unknown" }
        return loads.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }
}
