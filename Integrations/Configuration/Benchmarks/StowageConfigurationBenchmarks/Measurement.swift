import StowageBenchmarkSupport

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
