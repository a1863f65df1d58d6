/// A store with one natural, process-wide instance (EFStorage's `makeDefault`).
///
/// Conforming enables the wrapper initialisers without `in:`.
///
/// ```swift
/// extension InMemoryStore: DefaultInstanceProviding {
///     public static let `default` = InMemoryStore()
/// }
/// ```
public protocol DefaultInstanceProviding: UnderlyingStorage {
    /// The instance used when no store is named.
    static var `default`: Self { get }
}
