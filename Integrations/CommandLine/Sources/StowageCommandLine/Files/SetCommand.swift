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
            let store = try file.open()
            try file.waitForLock()
            try store.set(CommandLineValue.parse(value), forKey: key)
            try store.flush()
        }
    }
}
