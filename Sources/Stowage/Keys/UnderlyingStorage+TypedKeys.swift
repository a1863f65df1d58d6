extension UnderlyingStorage {
    /// The value for a typed key, or its default; setting writes it.
    ///
    /// Errors are reported (see ``StowageReport``) and reads fall back to the
    /// key's default. `$property` of a ``Stored`` wrapper on the key observes
    /// and modifies it.
    public subscript<Value: Storable>(key: StorageKey<Value>) -> Value {
        get { DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault).value }
        set { DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault).value = newValue }
    }

    /// The reference for a typed key, carrying its default: what a wrapper on the key projects.
    package func defaultedReference<Value: Storable>(for key: StorageKey<Value>) -> DefaultedReference<Self, Value> {
        DefaultedReference(reference(forKey: key.name, as: Value.self), default: key.makeDefault)
    }
}
