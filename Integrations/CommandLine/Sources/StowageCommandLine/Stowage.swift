import ArgumentParser

/// `stowage`: override a running program's feature flags, and read and
/// edit its JSON settings files safely while it runs.
@main
struct Stowage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage",
        abstract: "Override feature flags and edit JSON settings files of running programs.",
        discussion: """
            Every change takes the Stowage store's lock and is written atomically and \
            durably, so a running program that uses Stowage sees it and never loses one of \
            its own. Output is aligned for people; --json prints JSON for scripts. \
            The exit status is 0 on success, 1 with a message naming the key and the \
            problem otherwise.

            Examples:
              stowage flags list --manifest ~/.config/myapp/app-flags.overrides.manifest.json
              stowage set ~/.config/myapp/settings.json theme dark
            """,
        subcommands: [
            FlagsCommand.self,
            GetCommand.self, SetCommand.self, RemoveCommand.self, ListCommand.self, WatchCommand.self, HistoryCommand.self,
        ]
    )
}
