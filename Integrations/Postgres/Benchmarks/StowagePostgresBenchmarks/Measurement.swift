import Dispatch

/// A point on the system's monotonic clock, comparable across processes of
/// one machine: the modify group's children report when they finished.
struct Timestamp: Sendable, Comparable {
    let nanoseconds: UInt64

    static func now() -> Timestamp { Timestamp(nanoseconds: DispatchTime.now().uptimeNanoseconds) }

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
