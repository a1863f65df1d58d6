/// A type that groups typed keys, so that their names are built from where
/// they are declared instead of repeated in strings.
///
/// ```swift
/// enum Keys: StorageKeyGroup {
///     static let keyStrategy = StorageKeyStrategy(caseStyle: .kebabCase)
///     enum Network: StorageKeyGroup {
///         typealias Parent = Keys
///         static let requestTimeout = key("requestTimeout", default: 30.0)   // "network.request-timeout"
///     }
/// }
/// store[Keys.Network.requestTimeout] = 10
/// ```
///
/// A group names its `Parent` (Swift offers no other way to find the type a
/// type is nested in); the top-level group, whose `Parent` is left as
/// ``TopLevelKeyGroup``, holds the strategy and is not part of key names
/// unless its ``groupName`` says so. Each key names its last part once: a
/// `static let` can not learn its own name.
public protocol StorageKeyGroup {
    /// The group this one is nested in; leave it out for the top-level group.
    associatedtype Parent: StorageKeyGroup = TopLevelKeyGroup
    /// This group's part of its keys' names: by default the type name for a
    /// nested group, and nothing for the top-level one.
    static var groupName: StorageKeyGroupName { get }
    /// How names are built; by default the parent's strategy.
    static var keyStrategy: StorageKeyStrategy { get }
}

/// A group's part of key names.
public enum StorageKeyGroupName: Sendable {
    /// The type name, styled: `Network` is `network`, or `NETWORK` nowhere
    /// (the environment store maps `network.timeout` to `NETWORK_TIMEOUT`).
    case typeName
    /// This text, as written.
    case custom(String)
    /// No part: the group's keys read as if declared in its parent.
    case skipped
}

/// The parent of top-level key groups; it adds nothing to key names.
public enum TopLevelKeyGroup: StorageKeyGroup {
    public typealias Parent = TopLevelKeyGroup
    public static var groupName: StorageKeyGroupName { .skipped }
    public static var keyStrategy: StorageKeyStrategy { StorageKeyStrategy() }
}

extension StorageKeyGroup {
    public static var groupName: StorageKeyGroupName {
        Parent.self == TopLevelKeyGroup.self ? .skipped : .typeName
    }

    public static var keyStrategy: StorageKeyStrategy { Parent.keyStrategy }

    /// The parts of this group's keys' names that come from the groups, styled by `strategy`.
    static func groupParts(styledBy strategy: StorageKeyStrategy) -> [String] {
        guard Self.self != TopLevelKeyGroup.self else { return [] }
        let parentParts = Parent.groupParts(styledBy: strategy)
        switch groupName {
        case .typeName: return parentParts + [strategy.styled(typeName: String(describing: Self.self))]
        case .custom(let name): return parentParts + [name]
        case .skipped: return parentParts
        }
    }

    /// The full name of the key whose last part is `name`.
    package static func keyName(_ name: String) -> String {
        let strategy = keyStrategy
        return strategy.key(joining: groupParts(styledBy: strategy) + [strategy.styled(name)])
    }

    /// A key of this group; `name` is its last part, styled by the strategy.
    public static func key<Value: Storable>(_ name: String, default defaultValue: @autoclosure @escaping @Sendable () -> Value) -> StorageKey<Value> {
        StorageKey(keyName(name), default: defaultValue())
    }

    /// A key with exactly this full name, outside the group's naming (for
    /// a key that must keep an older name).
    public static func key<Value: Storable>(fullName: String, default defaultValue: @autoclosure @escaping @Sendable () -> Value) -> StorageKey<Value> {
        StorageKey(fullName, default: defaultValue())
    }
}
