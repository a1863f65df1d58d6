import ArgumentParser
import Foundation
import StowageFlags

/// `stowage flags`: a program's flags, from the manifest its `FlagPole` wrote.
struct FlagsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "List, evaluate, override and watch a program's feature flags.",
        discussion: """
            Works from the manifest a program writes with FlagPole.writeManifest(), beside \
            its overrides file (app-flags.overrides.json gives app-flags.overrides.manifest.json). \
            Name it with --manifest or STOWAGE_FLAGS_MANIFEST.

            Example:
              stowage flags set --manifest app-flags.overrides.manifest.json new-checkout true
            """,
        subcommands: [
            FlagsListCommand.self, FlagsEvalCommand.self, FlagsSetCommand.self, FlagsResetCommand.self, FlagsWatchCommand.self, FlagsHistoryCommand.self,
        ]
    )
}
