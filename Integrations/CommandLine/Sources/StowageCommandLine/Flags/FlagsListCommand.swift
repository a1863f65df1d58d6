import ArgumentParser
import StowageJSON
import Foundation
import StowageFlags

/// `stowage flags list`.
struct FlagsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every flag: key, value, origin (targeting among them), default, type and description.",
        discussion: """
            The origin is override, targeting, remote or default; an overridden flag is marked \
            with *, and a flag whose configuration has a targeting rule with "targets" (its value \
            is then the one for an empty context: see stowage flags eval). \
            Overrides left for flags the program no longer declares are listed after the flags.

            Example:
              stowage flags list --manifest app-flags.overrides.manifest.json --search checkout
            """
    )

    @OptionGroup var options: ManifestOptions
    @Option(help: "Only flags whose key, name in code or description contains this text, ignoring case.")
    var search: String?
    @ArgumentParser.Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        try reportingFailures {
            let flags = try options.open()
            let states = flags.all(matching: search ?? "")
            let orphans = flags.orphanedOverrides
            let invalid = flags.invalidOverrides
            if json {
                Output.json(
                    .dictionary([
                        "flags": .array(states.map(\.jsonValue)),
                        "orphanedOverrides": .dictionary(orphans),
                        "invalidOverrides": .dictionary(invalid),
                        "seesRemoteValues": .bool(flags.seesRemoteValues),
                    ]))
                return
            }
            var rows = [["KEY", "VALUE", "ORIGIN", "DEFAULT", "TYPE", "DESCRIPTION"]]
            for state in states {
                rows.append([
                    state.key, state.value.jsonText,
                    state.origin.rawValue + (state.isOverridden ? " *" : "") + (state.hasTargeting && state.origin != .targeting ? " (targets)" : ""),
                    state.defaultValue.jsonText, "\(state.type)", state.description,
                ])
            }
            Output.table(rows)
            if !orphans.isEmpty {
                Output.line("")
                Output.line("Overrides for flags the program no longer declares (remove with stowage flags reset KEY):")
                Output.table(orphans.keys.sorted().map { [$0, orphans[$0]?.jsonText ?? ""] })
            }
            if !invalid.isEmpty {
                Output.line("")
                Output.line("Overrides the program ignores, not being values of their flags' types (remove with stowage flags reset KEY):")
                Output.table(
                    invalid.keys.sorted().map { key in
                        [key, invalid[key]?.jsonText ?? "", flags.state(forKey: key).map { "takes \($0.type.expectation)" } ?? ""]
                    })
            }
            if !flags.seesRemoteValues {
                Output.line("")
                Output.line("The program keeps its remote values in memory only: flags it has remote values for may show their defaults here.")
            }
        }
    }
}
