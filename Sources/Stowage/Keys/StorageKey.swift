/// A key with its value type and default: the name, the type and the fallback
/// are declared once and checked by the compiler everywhere the key is used.
/// Immutable (`let`s of sendable values only), so sharing it across threads is safe.
public final class StorageKey<Value: Storable>: StorageKeys, @unchecked Sendable {
    /// The key as the store sees it.
    public let name: String
    let makeDefault: @Sendable () -> Value

    /// - Parameters:
    ///   - name: the key as the store sees it.
    ///   - defaultValue: what reads yield while the key is absent; evaluated on each such read.
    public init(_ name: String, default defaultValue: @autoclosure @escaping @Sendable () -> Value) {
        self.name = name
        self.makeDefault = defaultValue
    }

    /// The value reads yield while the key is absent.
    public var defaultValue: Value { makeDefault() }
}
