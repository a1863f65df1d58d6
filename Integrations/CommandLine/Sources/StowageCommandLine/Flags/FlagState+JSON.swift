import StowageFlags

/// What `flags list --json` and `flags watch --json` print for a flag.
extension FlagState {
    /// The state as JSON for scripts.
    var jsonValue: StoredValue {
        [
            "key": .string(key),
            "name": .string(definition.name),
            "description": .string(description),
            "type": .string(type.name),
            "expects": .string(type.expectation),
            "default": defaultValue,
            "value": value,
            "origin": .string(origin.rawValue),
            "overridden": .bool(isOverridden),
            "targeting": configuration?.targeting ?? .null,
        ]
    }
}
