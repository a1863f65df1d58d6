import Stowage

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
            let name = KeyWords.words(in: key).joined(separator: "_").uppercased()
            guard !prefix.isEmpty else { return name }
            return prefix.hasSuffix("_") ? prefix + name : prefix + "_" + name
        }
    }
}
