// Runs one hot path a given number of times, for callgrind to count its
// instructions: see Scripts/instruction-counts.sh, which runs every path
// twice (N and 2N iterations), counting only inside `countedLoop`, and divides
// the difference by N, and Benchmarks/InstructionCounts.md. Not a product.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: StowageInstructionCounts PATH ITERATIONS   runs PATH's operation ITERATIONS times, after its setup
           StowageInstructionCounts --list            names every path, with what it does
    """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--list"] {
    for path in HotPath.all { print("\(path.name)\t\(path.summary)") }
    exit(0)
}
guard arguments.count == 2, let iterations = Int(arguments[1]), iterations >= 0 else {
    print(usage)
    exit(2)
}
guard let path = HotPath.all.first(where: { $0.name == arguments[0] }) else {
    print("No hot path named \(arguments[0]); StowageInstructionCounts --list names them.")
    exit(2)
}

do {
    let operation = try path.prepare()
    let warmUp = (0..<HotPath.warmUpIterations).reduce(0) { sum, _ in sum &+ operation() }
    let sum = countedLoop(iterations, operation)
    let expected = path.expected &* (HotPath.warmUpIterations &+ iterations)
    guard warmUp &+ sum == expected else {
        print("\(path.name): the operation returned \(warmUp &+ sum) in all, not \(expected): it did not do what it should.")
        exit(1)
    }
} catch {
    print("\(path.name): the setup failed: \(error)")
    exit(1)
}
