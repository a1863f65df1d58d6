// The bridge's benchmarks: each read beside its baseline, measured in the
// same run, printed as Markdown tables. From the repository's root:
//
//   swift run -c release --package-path Integrations/Configuration StowageConfigurationBenchmarks           # the full run
//   swift run --package-path Integrations/Configuration StowageConfigurationBenchmarks --quick              # seconds, checks results (CI)
//
// Benchmarks/README.md has the figures.
import Foundation
import StowageBenchmarkSupport

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains("--help") || arguments.contains("-h") {
        print("usage: StowageConfigurationBenchmarks [--quick]\n  --quick   a few seconds in all, checking every result (CI); the full run by default")
        exit(0)
    }
    guard arguments.allSatisfy({ $0 == "--quick" }) else { throw BenchmarkFailure("unknown argument; see --help") }
    let quick = arguments.contains("--quick")
    let started = Timestamp.now()
    print(RunDescription(quick: quick).markdown)
    print(try ConfigReaderBenchmarks(quick: quick).run().markdown)
    print(try StoredReadBenchmarks(quick: quick).run().markdown)
    print("Whole run: \(Format.seconds(started.elapsed)); load average at the end: \(RunDescription.loadAverage()).")
} catch {
    FileHandle.standardError.write(Data("StowageConfigurationBenchmarks: \(error)\n".utf8))
    exit(1)
}
