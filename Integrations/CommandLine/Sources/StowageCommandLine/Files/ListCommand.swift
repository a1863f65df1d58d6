import ArgumentParser
import Foundation
import StowageFlags

/// `stowage list FILE`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every key and value, secrets redacted.",
        discussion: """
            Example:
              stowage list settings.json --nested .
            """
    )

    @OptionGroup var file: SettingsFileOptions
    @OptionGroup var secrets: ShowSecretsOption
    @ArgumentParser.Flag(help: "Print a JSON object for scripts.") var json = false

    func run() throws {
        try reportingFailures {
            guard FileManager.default.fileExists(atPath: file.file) else { throw CommandFailure("\(file.file) does not exist.") }
            let entries = try file.open().snapshot().entries
            let keys = entries.keys.sorted()
            if json {
                let shown = Dictionary(
                    uniqueKeysWithValues: keys.map { key -> (String, StoredValue) in
                        let value = entries[key] ?? .null
                        return (key, secrets.showSecrets ? value : Secrecy.redacted(value, forKey: key))
                    })
                Output.json(.dictionary(shown))
                return
            }
            Output.table(keys.map { [$0, Output.shown(entries[$0] ?? .null, forKey: $0, showingSecrets: secrets.showSecrets)] })
        }
    }
}
