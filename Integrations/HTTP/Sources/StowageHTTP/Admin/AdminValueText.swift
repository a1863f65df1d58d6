import Stowage
import StowageJSON

/// Values as the admin page shows them: JSON, indented when it nests, so a
/// change of an object or a rule reads line by line.
enum AdminValueText {
    static func pretty(_ value: StoredValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .dictionary(let members) where !members.isEmpty:
            let lines = members.sorted { $0.key < $1.key }.map { key, member in
                inner + ((try? StoredValue.string(key).jsonText()) ?? "\"\(key)\"") + ": " + pretty(member, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return (try? value.jsonText()) ?? value.description
        }
    }

    /// The lines of `old` and `new` as a diff: each line kept (" "), removed ("-") or added ("+").
    static func diff(_ old: String, _ new: String) -> [(mark: Character, line: Substring)] {
        // Nothing (a value set for the first time, or removed) has no lines, not one empty line.
        let a = old.isEmpty ? [] : old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.isEmpty ? [] : new.split(separator: "\n", omittingEmptySubsequences: false)
        // The longest common subsequence, by table: values shown here are small.
        guard a.count * b.count <= 250_000 else { return a.map { ("-", $0) } + b.map { ("+", $0) } }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var (i, j) = (0, 0)
        var lines: [(mark: Character, line: Substring)] = []
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                lines.append((" ", a[i]))
                i += 1
                j += 1
            } else if j < b.count, i == a.count || table[i][j + 1] >= table[i + 1][j] {
                lines.append(("+", b[j]))
                j += 1
            } else {
                lines.append(("-", a[i]))
                i += 1
            }
        }
        return lines
    }
}
