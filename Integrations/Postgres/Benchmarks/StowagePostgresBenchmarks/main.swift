// The PostgreSQL store's benchmarks: each group beside a baseline measured in
// the same run, printed as Markdown tables. Run from the repository's root:
//
//   Integrations/Postgres/Scripts/benchmark.sh            # the full run
//   Integrations/Postgres/Scripts/benchmark.sh --quick    # a few seconds, for CI
//
// The script starts a throwaway server and exports the STOWAGE_POSTGRES_*
// variables this program reads. See Benchmarks/README.md for the figures.
import Foundation

exit(await BenchmarkCommand.run(Array(CommandLine.arguments.dropFirst())))
