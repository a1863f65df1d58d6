import Foundation
import StowageJSON
import StowageEnvironment
import StowageFlags

/// What the tool prints: aligned columns for people, JSON for scripts, and
/// messages on standard error; each line flushed at once, so `watch` can be
/// piped.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("stowage: " + text + "\n").utf8))
    }

    /// Rows in aligned columns, each but the last padded to its widest cell.
    static func table(_ rows: [[String]]) {
        guard let columns = rows.map(\.count).max() else { return }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() where index < columns - 1 { widths[index] = max(widths[index], cell.count) }
        }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            line(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }

    /// One JSON value, as compact text with sorted keys.
    static func json(_ value: StoredValue) {
        line(value.jsonText)
    }

    /// `value` as shown to people: JSON text with every secret in it
    /// redacted, or `<redacted>` for a secret key.
    static func shown(_ value: StoredValue, forKey key: String, showingSecrets: Bool) -> String {
        guard !showingSecrets else { return value.jsonText }
        guard !Secrecy.isSecret(key) else { return "<redacted>" }
        return Secrecy.redacted(value, forKey: key).jsonText
    }
}

/// Which keys hold secrets: the environment store's rule (names containing
/// PASSWORD, SECRET, TOKEN, KEY, CREDENTIAL or PRIVATE), so that the tool
/// hides what the rest of Stowage hides.
enum Secrecy {
    static func isSecret(_ key: String) -> Bool {
        EnvironmentStore.Secrets.default.isSecret(variableName: key, key: key)
    }

    /// `value`, kept under `key`, with the value of every secret key or
    /// member path in it (`database.password` in `{"database": {"password": …}}`)
    /// replaced by `"<redacted>"`, at any depth.
    static func redacted(_ value: StoredValue, forKey key: String) -> StoredValue {
        if isSecret(key) { return "<redacted>" }
        switch value {
        case .dictionary(let members):
            return .dictionary(
                members.reduce(into: [:]) { result, member in
                    result[member.key] = redacted(member.value, forKey: key + "." + member.key)
                })
        case .array(let elements):
            return .array(elements.map { redacted($0, forKey: key) })
        default:
            return value
        }
    }
}
