import ArgumentParser
import Foundation
import StowageFlags

/// `stowage set FILE KEY VALUE`.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a key, taking the store's lock; the file is written atomically and durably.",
        discussion: CommandLineValue.rule + """


            Example:
              stowage set settings.json server.port 8081
            """
    )

    @OptionGroup var file: SettingsFileOptions
    @Argument(help: "The key.") var key: String
    @Argument(help: "The value.") var value: String

    func run() throws {
        try reportingFailures {
            // A compare-and-swap: written and durable before it returns, and
            // applied only once written, so a timed-out lock leaves nothing to write at exit.
            let store = try file.open()
            let newValue = CommandLineValue.parse(value)
            try store.reference(forKey: key, as: StoredValue.self).modify { $0 = newValue }
        }
    }
}
