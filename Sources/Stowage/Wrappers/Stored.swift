/// A property backed by a key in a store.
///
/// Each store module offers an alias (`@InMemoryStorage`, `@JSONFileStorage`,
/// …); `@Stored` works with any store, including your own.
///
/// ```swift
/// struct Settings: Sendable {
///     @InMemoryStorage("launchCount") var launchCount = 0      // default when absent
///     @InMemoryStorage("user.name") var userName: String?       // absent -> nil; nil removes
///     @Stored(.retries, in: store) var retries                  // from a typed key
/// }
/// let settings = Settings()     // a `let` works: setters are nonmutating
/// settings.launchCount += 1
/// settings.$launchCount.modify { $0 += 1 }
/// ```
///
/// The getter never traps: a value that can not be read as `Value` yields the
/// default and is reported (`$setting.reference.lastError`, ``StowageReport``).
/// The projected value (`$setting`) is a ``DefaultedReference``: the shared
/// ``StorageReference`` plus this property's default.
///
/// In Swift 6, a wrapper on a `static var` is global mutable state and is
/// rejected; keep settings in a `let` instance of a struct, or use typed keys
/// declared as `static let`.
@propertyWrapper
public struct Stored<Storage: UnderlyingStorage, Value: Storable>: Sendable {
    /// The shared reference with this property's default.
    public let projectedValue: DefaultedReference<Storage, Value>

    /// The stored value, or the default while the key is absent or unreadable.
    @inlinable
    public var wrappedValue: Value {
        get { projectedValue.value }
        nonmutating set { projectedValue.value = newValue }
    }

    /// A property for `key` in `storage`, reading `wrappedValue` while the key is absent.
    /// - Parameters:
    ///   - wrappedValue: the default, evaluated whenever it is needed.
    ///   - key: the key in the store.
    ///   - storage: the store.
    ///   - persistsDefault: write the default into the store when a read finds the key absent.
    public init(
        wrappedValue: @autoclosure @escaping @Sendable () -> Value,
        _ key: String,
        in storage: Storage,
        persistsDefault: Bool = false
    ) {
        projectedValue = DefaultedReference(storage.reference(forKey: key), default: wrappedValue, persistsDefault: persistsDefault)
    }

    /// An optional property for `key` in `storage`: `nil` while the key is absent.
    public init<Wrapped>(_ key: String, in storage: Storage) where Value == Wrapped? {
        projectedValue = DefaultedReference(storage.reference(forKey: key), default: { nil })
    }

    /// A property for a typed key in `storage`, with the key's default.
    public init(_ key: StorageKey<Value>, in storage: Storage, persistsDefault: Bool = false) {
        projectedValue = storage.defaultedReference(for: key).persistingDefault(persistsDefault)
    }
}

extension Stored where Storage: DefaultInstanceProviding {
    /// A property for `key` in the store's default instance.
    public init(wrappedValue: @autoclosure @escaping @Sendable () -> Value, _ key: String, persistsDefault: Bool = false) {
        self.init(wrappedValue: wrappedValue(), key, in: .default, persistsDefault: persistsDefault)
    }

    /// An optional property for `key` in the store's default instance.
    public init<Wrapped>(_ key: String) where Value == Wrapped? {
        self.init(key, in: .default)
    }

    /// A property for a typed key in the store's default instance.
    public init(_ key: StorageKey<Value>, persistsDefault: Bool = false) {
        self.init(key, in: .default, persistsDefault: persistsDefault)
    }
}

extension DefaultedReference {
    func persistingDefault(_ persists: Bool) -> DefaultedReference {
        DefaultedReference(reference, default: makeDefault, persistsDefault: persists)
    }
}
