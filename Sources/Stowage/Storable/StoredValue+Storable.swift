/// A `StoredValue` is storable as itself, for code that works with raw values.
extension StoredValue: Storable {
    public init(storedValue: StoredValue) { self = storedValue }
    public func storedValue() -> StoredValue { self }
}
