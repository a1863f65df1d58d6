extension EnvironmentStore {
    /// How a store key becomes the name of an environment variable.
    ///
    /// ```swift
    /// KeyMapping.automatic(prefix: "MYAPP").variableName(for: "database.maxHTTPConnections")
    /// // "MYAPP_DATABASE_MAX_HTTP_CONNECTIONS"
    /// ```
    public enum KeyMapping: Sendable {
        /// Upper-case words joined by `_`, after an optional prefix. Dots,
        /// dashes and underscores separate words, and so do the word
        /// boundaries of camelCase, with acronyms kept whole
        /// (`maxHTTPConnections` is `MAX_HTTP_CONNECTIONS`, `userIDs` is
        /// `USER_IDS`); digits stay with
        /// the word before them (`ipv6Address` is `IPV6_ADDRESS`). A key that
        /// is already a variable name (`DATABASE_URL`) maps to itself.
        case automatic(prefix: String = "")
        /// The key is the variable name, as written.
        case exact
        /// Your own mapping; it should give distinct names for distinct keys.
        case custom(@Sendable (String) -> String)

        /// The variable that holds `key`.
        public func variableName(for key: String) -> String {
            switch self {
            case .automatic(let prefix): Self.automaticName(for: key, prefix: prefix)
            case .exact: key
            case .custom(let mapping): mapping(key)
            }
        }

        private static func automaticName(for key: String, prefix: String) -> String {
            var words: [Substring] = []
            for segment in key.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" }) {
                words.append(contentsOf: camelCaseWords(of: segment))
            }
            let name = words.joined(separator: "_").uppercased()
            guard !prefix.isEmpty else { return name }
            return prefix.hasSuffix("_") ? prefix + name : prefix + "_" + name
        }

        /// Splits `maxHTTPConnections` into `max`, `HTTP`, `Connections`: a
        /// word starts at an upper-case letter after a lower-case letter or a
        /// digit, and at the last upper-case letter of a run followed by a
        /// lower-case letter.
        private static func camelCaseWords(of segment: Substring) -> [Substring] {
            var words: [Substring] = []
            var wordStart = segment.startIndex
            var previous: Character?
            var index = segment.startIndex
            while index < segment.endIndex {
                let character = segment[index]
                let next = segment.index(after: index)
                if let previous, character.isUppercase {
                    let afterLowerOrDigit = previous.isLowercase || previous.isNumber
                    let endsAcronym = previous.isUppercase && next < segment.endIndex && segment[next].isLowercase
                        && !isPluralEnding(of: segment, at: next)
                    if afterLowerOrDigit || endsAcronym {
                        words.append(segment[wordStart..<index])
                        wordStart = index
                    }
                }
                previous = character
                index = next
            }
            words.append(segment[wordStart...])
            return words
        }

        /// Whether the lower-case letter at `index` is the `s` of a plural
        /// acronym (`userIDs`, `URLsByHost`): the `s` ends the word.
        private static func isPluralEnding(of segment: Substring, at index: Substring.Index) -> Bool {
            guard segment[index] == "s" else { return false }
            let after = segment.index(after: index)
            return after == segment.endIndex || segment[after].isUppercase || segment[after].isNumber
        }
    }
}
