/// A change to a store, as the store-wide ``UnderlyingStorage/changes`` stream reports it.
public enum StoreChange: Sendable, Hashable {
    /// The value of one key changed (or may have: a write of an equal value counts).
    case key(String)
    /// Any key may have changed, for example after a reload.
    case allKeys

    /// Whether this change may concern `key`.
    package func affects(_ key: String) -> Bool {
        switch self {
        case .key(let changed): changed == key
        case .allKeys: true
        }
    }
}
