#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the system's monotonic clock (`CLOCK_MONOTONIC`), one clock
/// for every process of the machine: children report when they finished,
/// wrote or heard something, and the parent compares their times.
struct Timestamp: Sendable, Comparable {
    let nanoseconds: UInt64

    static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Timestamp(nanoseconds: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// Seconds from this point to now.
    var elapsed: Double { Timestamp.now().seconds(since: self) }

    func seconds(since start: Timestamp) -> Double {
        Double(Int64(bitPattern: nanoseconds &- start.nanoseconds)) / 1e9
    }

    static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}

/// Measurements of one subject, in seconds, with the percentiles the tables show.
struct Samples: Sendable {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    mutating func append(_ value: Double) { values.append(value) }
    mutating func append(contentsOf other: Samples) { values.append(contentsOf: other.values) }

    var count: Int { values.count }
    var total: Double { values.reduce(0, +) }

    /// The nearest-rank percentile (`p` from 0 to 100); 0 when empty.
    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: Double { percentile(50) }
    /// The largest value; 0 when empty.
    var maximum: Double { values.max() ?? 0 }
}

/// Times `body` once.
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = Timestamp.now()
    try body()
    return start.elapsed
}

/// Times `body` once, for async work.
func measureAsync(_ body: () async throws -> Void) async rethrows -> Double {
    let start = Timestamp.now()
    try await body()
    return start.elapsed
}
