import ArgumentParser
import StowageJSON
import Foundation
import StowageFlags

/// `stowage flags set`.
struct FlagsSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Override a flag, checked against its type.",
        discussion: CommandLineValue.rule + """


            Example:
              stowage flags set --manifest app-flags.overrides.manifest.json rate-limit 250
            """
    )

    @OptionGroup var options: ManifestOptions
    @Argument(help: "The flag's key.") var key: String
    @Argument(help: "The value.") var value: String

    func run() throws {
        try reportingFailures {
            let flags = try options.open()
            // Checked against the flag's type, and written under the lock before it returns.
            try flags.override(key: key, with: CommandLineValue.parse(value))
            if let state = flags.state(forKey: key) { Output.line("\(key) = \(state.value.jsonText) (override)") }
        }
    }
}
