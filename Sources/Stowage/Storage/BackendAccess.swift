/// Proof that Stowage is the caller: the last argument of every
/// ``UnderlyingStorage`` requirement that reads or changes a store's data.
///
/// Only Stowage can make one, so app code can not call those requirements:
/// a write made through them would bypass every reference's cache and every
/// observer. App code reads and writes through `value(forKey:)`,
/// `set(_:forKey:)`, references and wrappers instead, which keep both
/// coherent. A store that wraps another passes on the access it was given.
///
/// ```swift
/// func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
///     try inner.setStoredValue(value, forKey: prefix + key, access)
/// }
/// ```
public struct BackendAccess: Sendable {
    /// Stowage's own; tests and the conformance suite of this package use it too.
    @usableFromInline package static let granted = BackendAccess()

    private init() {}
}
