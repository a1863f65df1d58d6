#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the monotonic clock.
struct Timestamp: Sendable {
    let nanoseconds: UInt64

    static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Timestamp(nanoseconds: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// Seconds from this point to now.
    var elapsed: Double { Double(Timestamp.now().nanoseconds &- nanoseconds) / 1e9 }
}

/// Measurements of one subject, in seconds, with the percentiles the tables show.
struct Samples: Sendable {
    private(set) var values: [Double] = []

    mutating func append(_ value: Double) { values.append(value) }

    /// The nearest-rank percentile (`p` from 0 to 100); 0 when empty.
    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: Double { percentile(50) }
}

/// One thing measured: a batch of `iterations` reads that returns their sum, so the result can be checked.
struct Subject {
    let name: String
    let readBatch: (_ iterations: Int) throws -> Int
}

/// Runs each subject's batch once per round, the subjects taking turns so a
/// change in the machine's speed falls on all alike, and checks every sum.
/// Round 0 warms caches up and is not kept.
/// - Returns: per subject, the time per read of each kept round.
func measureRounds(_ subjects: [Subject], rounds: Int, iterations: Int, expectedSum: Int) throws -> [Samples] {
    var perRead = [Samples](repeating: Samples(), count: subjects.count)
    for round in 0...rounds {
        for (index, subject) in subjects.enumerated() {
            let start = Timestamp.now()
            let sum = try subject.readBatch(iterations)
            let seconds = start.elapsed
            guard sum == expectedSum else {
                throw BenchmarkFailure("\(subject.name): \(iterations) reads summed to \(sum), not \(expectedSum): a read gave a wrong value")
            }
            if round > 0 { perRead[index].append(seconds / Double(iterations)) }
        }
    }
    return perRead
}

/// A failure that ends the run with its message and status 1: a wrong result, a bad argument.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
