import ArgumentParser
import Foundation
import StowageFlags

/// `stowage get FILE KEY`.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a key's value as JSON.",
        discussion: """
            Example:
              stowage get settings.json server.port
            """
    )

    @OptionGroup var file: SettingsFileOptions
    @Argument(help: "The key.") var key: String
    @OptionGroup var secrets: ShowSecretsOption

    func run() throws {
        try reportingFailures {
            let store = try file.open()
            guard let value = try store.value(forKey: key, as: StoredValue.self) else {
                throw CommandFailure("Key \"\(key)\": \(file.file) has no value for this key.")
            }
            Output.line(Output.shown(value, forKey: key, showingSecrets: secrets.showSecrets))
        }
    }
}
