/// How one flag's part of its key is written, when the pole's key strategy
/// should not decide it alone.
///
/// ```swift
/// @Flag("Uses snake case for this name only", key: .styled(.snakeCase)) var myAwesomeFlag = false
/// @Flag("Keeps the server's name", key: .custom("my-key")) var renamed = false
/// @Flag("Ignores the groups and the prefix", key: .fullName("legacy-flag")) var legacy = false
/// ```
public struct FlagKey: Sendable, Hashable {
    enum Rule: Sendable, Hashable {
        case automatic
        case styled(StorageKeyStrategy.CaseStyle)
        case custom(String)
        case fullName(String)
    }

    let rule: Rule

    /// The property name, in the pole's case style.
    public static let automatic = FlagKey(rule: .automatic)

    /// The property name in `style`; the groups' parts and the prefix keep the pole's style.
    public static func styled(_ style: StorageKeyStrategy.CaseStyle) -> FlagKey { FlagKey(rule: .styled(style)) }

    /// `name` as written, in place of the property name; the groups' parts and the prefix stay.
    public static func custom(_ name: String) -> FlagKey { FlagKey(rule: .custom(name)) }

    /// The whole key, as written: no prefix and no group parts.
    public static func fullName(_ key: String) -> FlagKey { FlagKey(rule: .fullName(key)) }
}

/// How a group's part of its flags' keys is written.
///
/// ```swift
/// @FlagGroup("Grouping in code only", key: .skipped) var internals = InternalFlags()
/// ```
public struct FlagGroupKey: Sendable, Hashable {
    enum Rule: Sendable, Hashable {
        case automatic
        case styled(StorageKeyStrategy.CaseStyle)
        case custom(String)
        case skipped
    }

    let rule: Rule

    /// The property name, in the pole's case style.
    public static let automatic = FlagGroupKey(rule: .automatic)

    /// The property name in `style`; the other parts keep the pole's style.
    public static func styled(_ style: StorageKeyStrategy.CaseStyle) -> FlagGroupKey { FlagGroupKey(rule: .styled(style)) }

    /// `name` as written, in place of the property name.
    public static func custom(_ name: String) -> FlagGroupKey { FlagGroupKey(rule: .custom(name)) }

    /// No part at all: the group's flags are keyed as if declared in its parent.
    public static let skipped = FlagGroupKey(rule: .skipped)
}
