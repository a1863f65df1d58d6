extension EnvironmentStore {
    /// Which variables hold secrets. A secret's value never appears in the
    /// store's `description`, `debugDescription`, `dump` output, or in an
    /// error message (and so never reaches the reporting hook).
    ///
    /// ```swift
    /// var secrets = EnvironmentStore.Secrets.default   // PASSWORD, SECRET, TOKEN, ...
    /// secrets.keys.insert("database.dsn")
    /// secrets.predicate = { name in name.hasPrefix("VAULT_") }
    /// ```
    public struct Secrets: Sendable {
        /// Keys, or variable names, that are secret.
        public var keys: Set<String>
        /// Variable names containing any of these, in any case, are secret.
        public var nameFragments: [String]
        /// Variable names for which this returns `true` are secret.
        public var predicate: (@Sendable (_ variableName: String) -> Bool)?

        /// The fragments that mark a variable secret by default.
        public static let defaultNameFragments = ["PASSWORD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "PRIVATE"]
        /// Variables whose names contain PASSWORD, SECRET, TOKEN, KEY, CREDENTIAL or PRIVATE.
        public static let `default` = Secrets()
        /// Nothing is secret.
        public static let none = Secrets(nameFragments: [])

        public init(
            keys: Set<String> = [],
            nameFragments: [String] = Secrets.defaultNameFragments,
            predicate: (@Sendable (_ variableName: String) -> Bool)? = nil
        ) {
            self.keys = keys
            self.nameFragments = nameFragments
            self.predicate = predicate
        }

        /// Whether the variable `variableName`, read for `key` when known, is secret.
        public func isSecret(variableName: String, key: String? = nil) -> Bool {
            if keys.contains(variableName) || key.map(keys.contains) == true { return true }
            let upper = variableName.uppercased()
            if nameFragments.contains(where: { !$0.isEmpty && upper.contains($0.uppercased()) }) { return true }
            return predicate?(variableName) ?? false
        }
    }
}
