import ArgumentParser
import StowageJSON
import Foundation
import StowageFlags

/// `stowage flags reset`.
struct FlagsResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove a flag's override, or every override with --all.",
        discussion: """
            The flag reads its remote value or its default again. A key no flag has is \
            removed too, if an override was left for it.

            Examples:
              stowage flags reset --manifest app-flags.overrides.manifest.json rate-limit
              stowage flags reset --manifest app-flags.overrides.manifest.json --all
            """
    )

    @OptionGroup var options: ManifestOptions
    @Argument(help: "The flag's key.") var key: String?
    @ArgumentParser.Flag(help: "Remove every override.") var all = false

    func validate() throws {
        guard (key == nil) != (!all) else { throw ValidationError("give a flag's key, or --all.") }
    }

    func run() throws {
        try reportingFailures {
            let flags = try options.open()
            if all {
                let removed = try flags.removeAllOverrides()
                Output.line(removed.isEmpty ? "No overrides to remove." : "Removed the overrides of \(removed.joined(separator: ", ")).")
                return
            }
            guard let key else { return }
            // The override as the file holds it: one the program ignores, being no valid value, is removed too.
            let overridden = (try flags.overrides.value(forKey: key, as: StoredValue.self)) != nil
            guard overridden else {
                if flags.state(forKey: key) == nil {
                    throw CommandFailure("Key \"\(key)\": \(flags.manifest.container) has no flag with this key, and no override is left for it.")
                }
                Output.line("\(key) has no override.")
                return
            }
            try flags.removeOverride(forKey: key)
            if let state = flags.state(forKey: key) {
                Output.line("\(key) = \(state.value.jsonText) (\(state.origin.rawValue))")
            } else {
                Output.line("Removed the override left for \(key).")
            }
        }
    }
}
