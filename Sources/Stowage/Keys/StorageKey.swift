/// The namespace typed keys are declared in, as `static let`s (safe in Swift 6,
/// unlike the `static var` of older libraries):
///
/// ```swift
/// extension StorageKeys {
///     static let retries = StorageKey<Int>("net.retries", default: 3)
/// }
/// store[.retries] += 1
/// ```
///
/// It is a class only so that its static members are found from `StorageKey`,
/// which makes the leading-dot syntax work; it has no state.
public class StorageKeys: @unchecked Sendable {
    fileprivate init() {}
}

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

    /// An optional key, whose default is `nil`.
    public init<Wrapped>(_ name: String) where Value == Wrapped? {
        self.name = name
        self.makeDefault = { nil }
    }

    /// The value reads yield while the key is absent.
    public var defaultValue: Value { makeDefault() }
}

extension StorageKey: CustomStringConvertible {
    public var description: String { "StorageKey<\(Value.self)>(\"\(name)\")" }
}

extension UnderlyingStorage {
    /// The value for a typed key, or its default; setting writes it.
    ///
    /// Errors are reported (see `StorageError.reportingHandler`) and reads fall
    /// back to the key's default.
    public subscript<Value: Storable>(key: StorageKey<Value>) -> Value {
        get { DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault).value }
        set { DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault).value = newValue }
    }

    /// The reference for a typed key, carrying its default.
    public func reference<Value: Storable>(for key: StorageKey<Value>) -> DefaultedReference<Self, Value> {
        DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault)
    }
}
