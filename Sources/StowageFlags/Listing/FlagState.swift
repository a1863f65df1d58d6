/// Where a flag's current value comes from, highest precedence first.
public enum FlagOrigin: String, Sendable, Hashable, CaseIterable {
    /// A local override.
    case override
    /// A targeting rule of the flag's configuration, evaluated for the
    /// task's ``EvaluationContext`` (so a listing shows the value for that context).
    case targeting
    /// The remote values: the last payload applied, or the remote store.
    case remote
    /// The declared default.
    case `default`
}

/// A flag at one moment: its definition, value and origin. What
/// ``FlagPole/all`` lists and ``FlagPole/changes`` delivers.
public struct FlagState: Sendable, Hashable, Identifiable {
    public var definition: FlagDefinition
    /// The current value, in its canonical stored form.
    public var value: StoredValue
    public var origin: FlagOrigin
    /// The flag's configuration in flagd's format, when the remote values hold one.
    public var configuration: FlagConfiguration?

    public init(definition: FlagDefinition, value: StoredValue, origin: FlagOrigin, configuration: FlagConfiguration? = nil) {
        self.definition = definition
        self.value = value
        self.origin = origin
        self.configuration = configuration
    }

    public var id: String { definition.key }
    public var key: String { definition.key }
    /// What the flag does.
    public var description: String { definition.description }
    public var type: FlagType { definition.type }
    public var defaultValue: StoredValue { definition.defaultValue }
    /// Whether a local override sets the value.
    public var isOverridden: Bool { origin == .override }
    /// Whether a targeting rule decides the flag's value per context (unless an override sets it).
    public var hasTargeting: Bool { configuration?.hasTargeting ?? false }

    /// The value as `Value`.
    /// - Throws: `StorageError` when the flag is not of that type.
    public func value<Value: Storable>(as type: Value.Type) throws -> Value {
        do { return try Value(storedValue: value) } catch {
            throw StorageError.wrapping(error, key: key, code: .typeMismatch, reason: "the flag's value is not a \(Value.self).")
        }
    }
}
