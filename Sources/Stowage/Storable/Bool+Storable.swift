extension Bool: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .bool(let value) = storedValue else { throw StorageError.typeMismatch(expected: Bool.self, found: storedValue) }
        self = value
    }

    public func storedValue() -> StoredValue { .bool(self) }
}
