import Foundation
import StowagePostgres
import StowageBenchmarkSupport

/// What a run does, from its arguments.
struct RunOptions: Sendable {
    /// A few seconds in all, for CI: fewer iterations, the same code paths.
    var quick = false
    /// The groups to run, all by default.
    var groups: [BenchmarkGroup] = BenchmarkGroup.allCases

    static let usage = """
        usage: StowagePostgresBenchmarks [--quick] [--only read,write,modify,load,propagation,convergence,fleet]
          --quick   a few seconds in all (CI); the full run by default
          --only    the groups to run, by name
        Reads STOWAGE_POSTGRES_HOST, _PORT, _USER, _PASSWORD and _DATABASE;
        Scripts/benchmark.sh starts a server and sets them.
        """

    init(_ arguments: [String]) throws(BenchmarkFailure) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--only":
                guard let list = remaining.popFirst() else { throw BenchmarkFailure("--only needs a list of groups\n\(Self.usage)") }
                groups = []
                for name in list.split(separator: ",") {
                    guard let group = BenchmarkGroup(rawValue: String(name)) else {
                        throw BenchmarkFailure("no group \(name); groups: \(BenchmarkGroup.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    groups.append(group)
                }
            default: throw BenchmarkFailure("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}

enum BenchmarkGroup: String, CaseIterable, Sendable {
    case read, write, modify, load, propagation, convergence, fleet
}

/// The entry point: a child of the modify, propagation, convergence or fleet group, `--help`, or a run of the groups.
enum BenchmarkCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            switch arguments.first {
            case ModifyChild.subcommand:
                try await ModifyChild.run(Array(arguments.dropFirst()))
                return 0
            case PropagationChild.subcommand:
                try await PropagationChild.run(Array(arguments.dropFirst()))
                return 0
            case ConvergenceChild.subcommand:
                try await ConvergenceChild.run(Array(arguments.dropFirst()))
                return 0
            case FleetChild.subcommand:
                try await FleetChild.run(Array(arguments.dropFirst()))
                return 0
            default: break
            }
            if arguments.contains("--help") || arguments.contains("-h") {
                print(RunOptions.usage)
                return 0
            }
            let options = try RunOptions(arguments)
            try await runGroups(options)
            return 0
        } catch {
            FileHandle.standardError.write(Data("StowagePostgresBenchmarks: \(error)\n".utf8))
            return 1
        }
    }

    private static func runGroups(_ options: RunOptions) async throws {
        let database = try BenchmarkDatabase.fromEnvironment()
        let started = Timestamp.now()
        try await database.withClient { client in
            print(try await MachineDescription.read(client: client, options: options).markdown)
        }
        for group in options.groups {
            let table: ResultTable
            switch group {
            case .read: table = try await ReadBenchmarks(database: database, quick: options.quick).run()
            case .write: table = try await WriteBenchmarks(database: database, quick: options.quick).run()
            case .modify: table = try await ModifyBenchmarks(database: database, quick: options.quick).run()
            case .load: table = try await LoadBenchmarks(database: database, quick: options.quick).run()
            case .propagation: table = try await PropagationBenchmarks(database: database, quick: options.quick).run()
            case .fleet: table = try await FleetBenchmarks(database: database, quick: options.quick).run()
            case .convergence: table = try await ConvergenceBenchmarks(database: database, quick: options.quick).run()
            }
            print(table.markdown)
        }
        print("Whole run: \(Format.seconds(started.elapsed)); load average at the end: \(MachineDescription.loadAverage()).")
    }
}

/// A failure that ends the run with its message and status 1: a wrong result, a missing variable.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
