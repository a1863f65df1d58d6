/// A flag's configuration in flagd's format: whether it is on, its named
/// variants, the default one and the targeting rule that picks one per
/// context. What a remote payload of flag definitions carries per flag.
///
/// ```json
/// {"flags": {"new-checkout": {
///     "state": "ENABLED",
///     "variants": {"on": true, "off": false},
///     "defaultVariant": "off",
///     "targeting": {"fractional": [["on", 5], ["off", 95]]}
/// }}}
/// ```
public struct FlagConfiguration: Sendable, Hashable {
    public var key: String
    /// `false` for state `DISABLED`: every context reads the code's default.
    public var isEnabled: Bool
    /// The values by variant name, each of the flag's type.
    public var variants: [String: StoredValue]
    /// The variant served when targeting gives none; `nil` for the code's default.
    public var defaultVariant: String?
    /// The JsonLogic rule that names a variant, with shared evaluators
    /// (`$ref`) already put in place; `nil` when the flag does not target.
    public var targeting: StoredValue?
    /// The flag's own metadata (the set's is in ``FlagPole/configurationMetadata``).
    public var metadata: [String: StoredValue]

    public init(
        key: String, isEnabled: Bool = true, variants: [String: StoredValue], defaultVariant: String?,
        targeting: StoredValue? = nil, metadata: [String: StoredValue] = [:]
    ) {
        self.key = key
        self.isEnabled = isEnabled
        self.variants = variants
        self.defaultVariant = defaultVariant
        self.targeting = targeting
        self.metadata = metadata
    }

    /// Whether a rule decides the value per context.
    public var hasTargeting: Bool { targeting != nil }

    /// The value every context reads when the flag does not target: the
    /// default variant's; `nil` when that is the code's default (disabled, or no default variant).
    var staticValue: StoredValue? {
        guard isEnabled, let defaultVariant else { return nil }
        return variants[defaultVariant]
    }

    /// The configuration as flagd's flag-definition JSON holds it (shared
    /// evaluators in place): what a payload of definitions carries for the
    /// flag, for a tool or a server that passes definitions on.
    public var flagdValue: StoredValue {
        var entries: [String: StoredValue] = [
            "state": .string(isEnabled ? "ENABLED" : "DISABLED"),
            "variants": .dictionary(variants),
            "defaultVariant": defaultVariant.map(StoredValue.string) ?? .null,
        ]
        if let targeting { entries["targeting"] = targeting }
        if !metadata.isEmpty { entries["metadata"] = .dictionary(metadata) }
        return .dictionary(entries)
    }
}
