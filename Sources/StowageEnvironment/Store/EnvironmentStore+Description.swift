#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageLocking

extension EnvironmentStore: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A summary with no values at all.
    public var description: String {
        let (variableCount, writeCount) = state.withLock { ($0.variables.count, $0.overlay.count) }
        var text = "EnvironmentStore(\(variableCount) \(variableCount == 1 ? "variable" : "variables"), \(writeCount) written by this store"
        if let dotEnvFile { text += ", .env file \(dotEnvFile.url.path(percentEncoded: false))" }
        return text + ")"
    }

    /// Every variable the store reads, its writes applied, secrets redacted.
    public var debugDescription: String {
        let lines = redactedVariables().sorted { $0.key < $1.key }.map { "  \($0.key)=\($0.value)" }
        return description + (lines.isEmpty ? "" : ":\n" + lines.joined(separator: "\n"))
    }

    /// What `dump` and debuggers show: the variables, secrets redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["variables": redactedVariables(), "options.keyMapping": options.keyMapping], displayStyle: .class)
    }

    /// The text written in place of a secret.
    public static let redactedText = "<redacted>"

    private func redactedVariables() -> [String: String] {
        let keysByName = state.withLock { $0.keysByName }
        // Keys marked secret name their variables even before the store has used them.
        let secretNames = Set(options.secrets.keys.map(variableName(forKey:)))
        var variables = environmentForChildProcess()
        for (name, _) in variables where secretNames.contains(name) || options.secrets.isSecret(variableName: name, key: keysByName[name]) {
            variables[name] = Self.redactedText
        }
        return variables
    }
}
