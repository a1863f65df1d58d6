import ArgumentParser
import Foundation
import StowageFlags

/// `stowage flags eval`.
struct FlagsEvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate a flag for a context: value, variant, reason, error and metadata.",
        discussion: """
            Evaluates the flag as the program would for a request with this context: its override, \
            else its configuration's targeting rule, else its remote value, else its default. \
            Each --context NAME=VALUE adds an attribute; VALUE is read as a JSON literal, \
            text that is not JSON as a string. The program must keep its remote values in a file \
            for the tool to see its configurations.

            Example:
              stowage flags eval --manifest app-flags.overrides.manifest.json new-checkout --targeting-key user-42 --context tenant=acme --context appVersion=2.1.0
            """
    )

    @OptionGroup var options: ManifestOptions
    @Argument(help: "The flag's key.") var key: String
    @Option(help: ArgumentHelp("The targeting key: the user, session or tenant a split buckets by.", valueName: "key"))
    var targetingKey: String?
    @Option(help: ArgumentHelp("An attribute of the context, NAME=VALUE; repeat for more.", valueName: "name=value"))
    var context: [String] = []
    @ArgumentParser.Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        for entry in context where !entry.contains("=") || entry.hasPrefix("=") {
            throw ValidationError("--context takes NAME=VALUE; \(entry) has no name.")
        }
    }

    func run() throws {
        try reportingFailures {
            let flags = try options.open()
            var attributes: [String: StoredValue] = [:]
            for entry in context {
                let name = String(entry.prefix { $0 != "=" })
                attributes[name] = CommandLineValue.parse(String(entry.dropFirst(name.count + 1)))
            }
            let details = flags.details(forKey: key, for: EvaluationContext(targetingKey: targetingKey, attributes: attributes))
            if details.errorCode == .flagNotFound { throw CommandFailure("\(key): no flag has this key, and no configuration names it.") }
            if json {
                var output: [String: StoredValue] = [
                    "key": .string(key), "value": details.value ?? .null, "reason": .string(details.reason.rawValue),
                    "metadata": .dictionary(details.metadata),
                ]
                output["variant"] = details.variant.map(StoredValue.string)
                output["errorCode"] = details.errorCode.map { .string($0.rawValue) }
                output["errorMessage"] = details.errorMessage.map(StoredValue.string)
                Output.json(.dictionary(output))
            } else {
                var rows = [["value", details.value?.jsonText ?? "(the caller's default)"], ["reason", details.reason.rawValue]]
                if let variant = details.variant { rows.append(["variant", variant]) }
                if let code = details.errorCode { rows.append(["error", "\(code.rawValue): \(details.errorMessage ?? "")"]) }
                for (name, value) in details.metadata.sorted(by: { $0.key < $1.key }) { rows.append(["metadata." + name, value.jsonText]) }
                Output.table(rows)
            }
        }
    }
}
