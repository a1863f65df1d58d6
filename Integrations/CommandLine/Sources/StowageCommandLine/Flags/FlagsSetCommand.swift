import ArgumentParser
import StowageJSON
import Foundation
import StowageFlags

/// `stowage flags set`: an override in a program's file, or with `--server`
/// a value for a whole fleet, through its admin page.
struct FlagsSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Override a flag, checked against its type; or, with --server, set it for a fleet.",
        discussion: CommandLineValue.rule + """


            With --server, the value is set for every server of a fleet through its admin \
            page (AdminPage), checked there against the flag's type, and recorded in the \
            history as the token's user (STOWAGE_ADMIN_TOKEN, an editor's).

            Examples:
              stowage flags set --manifest app-flags.overrides.manifest.json rate-limit 250
              STOWAGE_ADMIN_TOKEN=… stowage flags set --server https://ops.example.com/admin rate-limit 250
            """
    )

    @OptionGroup var options: ManifestOptions
    @Option(help: "A fleet's admin page, such as https://ops.example.com/admin: set the value for the fleet, not an override.")
    var server: String?
    @Argument(help: "The flag's key.") var key: String
    @Argument(help: "The value.") var value: String

    func run() async throws {
        if let server {
            do {
                let state = try await AdminServer(address: server).post("/api/flags/\(AdminServer.pathSegment(key))", ["value": .string(value)])
                guard case .dictionary(let fields) = state else { return }
                let origin = if case .string(let origin)? = fields["origin"] { origin } else { "remote" }
                Output.line("\(key) = \(fields["value"]?.jsonText ?? "?") (\(origin), for the fleet)")
            } catch let failure as CommandFailure {
                Output.error(failure.description)
                throw ExitCode.failure
            }
            return
        }
        try reportingFailures {
            let flags = try options.open()
            // Checked against the flag's type, and written under the lock before it returns.
            try flags.override(key: key, with: CommandLineValue.parse(value))
            if let state = flags.state(forKey: key) { Output.line("\(key) = \(state.value.jsonText) (override)") }
        }
    }
}
