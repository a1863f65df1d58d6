import ArgumentParser
import StowageJSON
import Foundation
import StowageFlags

/// `stowage flags watch`.
struct FlagsWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change of a flag's value or origin as it happens, whoever made it.",
        discussion: """
            Runs until interrupted. Each line is `key = value (origin)`, or with --json one JSON \
            object per line.

            Example:
              stowage flags watch --manifest app-flags.overrides.manifest.json
            """
    )

    @OptionGroup var options: ManifestOptions
    @ArgumentParser.Flag(help: "Print one JSON object per change.") var json = false

    func run() async throws {
        let flags: FlagConsole
        do { flags = try options.open(changeDetection: .automatic()) } catch let error as StorageError {
            Output.error(error.message)
            throw ExitCode.failure
        } catch let failure as CommandFailure {
            Output.error(failure.description)
            throw ExitCode.failure
        }
        if !json { Output.line("Watching \(flags.manifest.container)'s flags; interrupt to stop.") }
        for await state in flags.changes {
            if json {
                Output.json(state.jsonValue)
            } else {
                Output.line("\(state.key) = \(state.value.jsonText) (\(state.origin.rawValue))")
            }
        }
    }
}
