public import Configuration

/// How swift-configuration's keys (components and a context) and Stowage's
/// keys (one string) name the same setting, in both directions.
///
/// The default joins components with `"."`, which is how Stowage's key
/// groups, typed keys and flags name settings (`"server.port"`,
/// `"search.vector-index"`), and splits a Stowage key on it again.
///
/// A Stowage key has no context, so the separator mappings ignore a
/// `AbsoluteConfigKey.context`: every context reads the same value. A
/// mapping of your own can fold the context into the key:
///
/// ```swift
/// let byRegion = ConfigKeyMapping(
///     storeKey: { key in
///         let base = key.components.joined(separator: ".")
///         guard case .string(let region)? = key.context["region"] else { return base }
///         return "\(region).\(base)"
///     },
///     configKey: { storeKey in   // the other way: "eu.http.timeout" is http.timeout for region eu
///         let parts = storeKey.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
///         guard let region = parts.first, ["eu", "us"].contains(region), parts.count > 1 else { return AbsoluteConfigKey(parts) }
///         return AbsoluteConfigKey(Array(parts.dropFirst()), context: ["region": .string(region)])
///     }
/// )
/// ```
public struct ConfigKeyMapping: Sendable {
    private enum Rule: Sendable {
        case separator(String)
        case custom(storeKey: @Sendable (AbsoluteConfigKey) -> String, configKey: @Sendable (String) -> AbsoluteConfigKey)
    }

    private let rule: Rule

    /// Components joined with `"."`, context ignored: the default.
    public static let dotted = ConfigKeyMapping.separator(".")

    /// Components joined with `separator`, and Stowage keys split on it; context ignored.
    ///
    /// An empty separator joins components with nothing and gives a Stowage
    /// key back as one component.
    public static func separator(_ separator: String) -> ConfigKeyMapping {
        ConfigKeyMapping(rule: .separator(separator))
    }

    /// A mapping of your own, for keys the separator rules can not express
    /// (a context folded into the key, a prefix, another case style).
    /// - Parameters:
    ///   - storeKey: the Stowage key a configuration key reads.
    ///   - configKey: the configuration key a Stowage key is looked up as,
    ///     for ``ConfigProviderStore``; it should undo `storeKey`.
    public init(
        storeKey: @escaping @Sendable (AbsoluteConfigKey) -> String,
        configKey: @escaping @Sendable (String) -> AbsoluteConfigKey
    ) {
        rule = .custom(storeKey: storeKey, configKey: configKey)
    }

    private init(rule: Rule) {
        self.rule = rule
    }

    /// The Stowage key that `key` reads.
    public func storeKey(for key: AbsoluteConfigKey) -> String {
        switch rule {
        case .separator(let separator):
            // One component is the common case of a flat key: no joining, no new string.
            key.components.count == 1 ? key.components[0] : key.components.joined(separator: separator)
        case .custom(let storeKey, _):
            storeKey(key)
        }
    }

    /// The configuration key that Stowage's `key` is looked up as, with no context.
    public func configKey(for key: String) -> AbsoluteConfigKey {
        switch rule {
        case .separator(let separator) where separator.utf8.count == 1:
            // Splitting on a Character is many times faster than on a String, and this runs on every uncached read.
            AbsoluteConfigKey(key.split(separator: separator.first ?? ".", omittingEmptySubsequences: false).map(String.init))
        case .separator(let separator) where !separator.isEmpty:
            AbsoluteConfigKey(key.split(separator: separator, omittingEmptySubsequences: false).map(String.init))
        case .separator:
            AbsoluteConfigKey([key])
        case .custom(_, let configKey):
            configKey(key)
        }
    }
}
