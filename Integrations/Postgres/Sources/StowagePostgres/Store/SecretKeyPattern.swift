/// A secret key's pattern, `*` standing for any text: matched in Swift for
/// the store's own redaction, and turned into SQL `LIKE` for the history's trigger.
enum SecretKeyPattern {
    static func matches(_ key: String, _ pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return key == pattern }
        guard key.hasPrefix(parts[0]), key.dropFirst(parts[0].count).hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = Substring(key.dropFirst(parts[0].count))
        rest = rest.dropLast(parts[parts.count - 1].count)
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let found = rest.firstRange(of: middle) else { return false }
            rest = rest[found.upperBound...]
        }
        return key.count >= parts[0].count + parts[parts.count - 1].count
    }

    /// `pattern` in `LIKE`'s terms, its own `%`, `_` and `\` escaped.
    static func likePattern(_ pattern: String) -> String {
        var like = ""
        for character in PostgresDatabase.databaseKey(pattern) {
            switch character {
            case "*": like += "%"
            case "%", "_", "\\": like += "\\\(character)"
            default: like.append(character)
            }
        }
        return like
    }
}
