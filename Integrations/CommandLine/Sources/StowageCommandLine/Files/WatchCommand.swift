import ArgumentParser
import Foundation
import StowageFlags

/// `stowage watch FILE [KEY...]`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change to the file's keys as it happens, whoever made it.",
        discussion: """
            Runs until interrupted. Each line is `key = value`, or `key removed`; with --json \
            one JSON object per line.

            Example:
              stowage watch settings.json server.port
            """
    )

    @OptionGroup var file: SettingsFileOptions
    @Argument(help: "Only these keys; every key unless given.") var keys: [String] = []
    @OptionGroup var secrets: ShowSecretsOption
    @ArgumentParser.Flag(help: "Print one JSON object per change.") var json = false

    func run() async throws {
        let store: JSONFileStore
        do { store = try file.open(changeDetection: .automatic()) } catch let failure as CommandFailure {
            Output.error(failure.description)
            throw ExitCode.failure
        }
        var last = (try? store.snapshot().entries) ?? [:]
        if !json { Output.line("Watching \(file.file); interrupt to stop.") }
        for await _ in store.changes {
            // Compared with what was printed last, whatever the event named: a
            // snapshot taken for one event may already hold the next one's change.
            let current = (try? store.snapshot().entries) ?? [:]
            let changed = Set(current.keys).union(last.keys).filter { current[$0] != last[$0] }
            last = current
            for key in changed.sorted() where keys.isEmpty || keys.contains(key) {
                let value = current[key]
                if json {
                    let shown: StoredValue = value.map { secrets.showSecrets ? $0 : Secrecy.redacted($0, forKey: key) } ?? .null
                    Output.json(["key": .string(key), "value": shown, "removed": .bool(value == nil)])
                } else if let value {
                    Output.line("\(key) = \(Output.shown(value, forKey: key, showingSecrets: secrets.showSecrets))")
                } else {
                    Output.line("\(key) removed")
                }
            }
        }
    }
}
