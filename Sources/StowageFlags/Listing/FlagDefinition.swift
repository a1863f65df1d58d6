/// What a flag's declaration says: its key, where it is declared, its
/// description, type and default. The same for the life of a pole.
public struct FlagDefinition: Sendable, Hashable, Identifiable {
    /// The key in every store: the overrides, the remote values, a payload.
    public var key: String
    /// The property names from the container down to the flag: `["search", "vectorIndex"]`.
    public var path: [String]
    /// What the flag does.
    public var description: String
    /// The groups the flag is declared in, outermost first.
    public var groups: [FlagGroupDefinition]
    public var type: FlagType
    /// The default, in its stored form.
    public var defaultValue: StoredValue

    public init(key: String, path: [String], description: String, groups: [FlagGroupDefinition], type: FlagType, defaultValue: StoredValue) {
        self.key = key
        self.path = path
        self.description = description
        self.groups = groups
        self.type = type
        self.defaultValue = defaultValue
    }

    public var id: String { key }

    /// The flag's name in code, from the container: `search.vectorIndex`.
    public var name: String { path.joined(separator: ".") }
}

/// A group a flag is declared in.
public struct FlagGroupDefinition: Sendable, Hashable {
    /// The property name: `search`.
    public var name: String
    public var description: String

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}
