#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What the figures were measured on, printed first: they mean little without it.
struct RunDescription {
    let quick: Bool

    var markdown: String {
        let host = ProcessInfo.processInfo
        #if DEBUG
        let build = "debug (figures meaningless; results checked)"
        #else
        let build = "release"
        #endif
        // Set by whoever runs it; the binary can not know the commit.
        let commit = host.environment["STOWAGE_BENCHMARK_COMMIT"] ?? "not given (set STOWAGE_BENCHMARK_COMMIT)"
        return """
            # StowageConfiguration benchmarks

            - Run: \(quick ? "--quick" : "full"), \(build) build, \(Date().formatted(.iso8601)), commit \(commit)
            - Machine: \(host.activeProcessorCount) cores, \(host.physicalMemory >> 30) GiB, \(host.operatingSystemVersionString); load average \(Self.loadAverage())

            """
    }

    /// The 1, 5 and 15 minute load averages: a busy machine makes the figures worthless.
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "unknown" }
        return loads.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }
}
