import ArgumentParser
import Foundation
import StowageFlags

/// `stowage remove FILE KEY`.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a key, taking the store's lock.",
        discussion: """
            Example:
              stowage remove settings.json server.port
            """
    )

    @OptionGroup var file: SettingsFileOptions
    @Argument(help: "The key.") var key: String

    func run() throws {
        try reportingFailures {
            let store = try file.open()
            guard try store.value(forKey: key, as: StoredValue.self) != nil else {
                throw CommandFailure("Key \"\(key)\": \(file.file) has no value for this key; nothing was removed.")
            }
            try store.reference(forKey: key, as: StoredValue.self).modify { $0 = nil }
        }
    }
}
