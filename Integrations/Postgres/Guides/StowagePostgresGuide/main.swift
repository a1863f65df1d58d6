// The code of Guides/PostgresStore.md and Guides/Fleet.md (at the
// repository's root) is compiled into this program by the GuideCode plugin,
// as runPostgresStoreGuide() and runFleetGuide(). CI runs each guide's code
// against a throwaway server (Scripts/postgres.sh run, with the PG* variables
// the guides read) under Scripts/guide-output.py, which checks that it prints
// exactly what the guide shows (Guides/Development.md, "How a guide shows output").
import Foundation

switch CommandLine.arguments.dropFirst().first {
case "PostgresStore": try await runPostgresStoreGuide()
case "Fleet": try await runFleetGuide()
default:
    FileHandle.standardError.write(Data("usage: StowagePostgresGuide PostgresStore|Fleet\n".utf8))
    exit(2)
}
