#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the system's monotonic clock (`CLOCK_MONOTONIC`), one clock
/// for every process of the machine: children report when they finished,
/// wrote or heard something, and the parent compares their times.
public struct Timestamp: Sendable, Comparable {
    public let nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Timestamp(nanoseconds: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// Seconds from this point to now.
    public var elapsed: Double { Timestamp.now().seconds(since: self) }

    public func seconds(since start: Timestamp) -> Double {
        Double(Int64(bitPattern: nanoseconds &- start.nanoseconds)) / 1e9
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}

/// Measurements of one subject, in seconds, with the percentiles the tables show.
public struct Samples: Sendable {
    public private(set) var values: [Double] = []

    public init(_ values: [Double] = []) { self.values = values }

    public mutating func append(_ value: Double) { values.append(value) }
    public mutating func append(contentsOf other: Samples) { values.append(contentsOf: other.values) }

    public var count: Int { values.count }
    public var total: Double { values.reduce(0, +) }

    /// The nearest-rank percentile (`p` from 0 to 100); 0 when empty.
    public func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    public var median: Double { percentile(50) }
    /// The largest value; 0 when empty.
    public var maximum: Double { values.max() ?? 0 }
}
