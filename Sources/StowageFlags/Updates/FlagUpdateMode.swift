/// What a payload says about the flags it leaves out.
public enum FlagUpdateMode: Sendable, Hashable {
    /// The payload is every remote value: a flag it leaves out (or sets to
    /// `null`) loses its remote value and reads its default again. What a
    /// server that sends all flags means, and the default.
    case fullState
    /// The payload changes only the flags it names: one it leaves out keeps
    /// its remote value, and one it sets to `null` loses it.
    case patch
}

/// What ``FlagPole/update(with:mode:)-(Sequence<UInt8>,_)`` did.
public struct FlagUpdateResult: Sendable {
    /// The flags whose remote value or configuration changed, sorted (a
    /// configuration's key even when no flag declares it).
    public var changedKeys: [String]
    /// One error per entry left out: a key no flag has, or a value not of its
    /// flag's type. Each names the key, the type expected and the value, and
    /// was reported through `StowageReport.handler`.
    public var rejected: [StorageError]
    /// The flags whose overrides the update removed (only with
    /// ``FlagPole/Options/remoteUpdatesClearOverrides``), sorted.
    public var clearedOverrides: [String]

    public init(changedKeys: [String] = [], rejected: [StorageError] = [], clearedOverrides: [String] = []) {
        self.changedKeys = changedKeys
        self.rejected = rejected
        self.clearedOverrides = clearedOverrides
    }
}
