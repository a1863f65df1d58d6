extension String: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .string(let value) = storedValue else { throw StorageError.typeMismatch(expected: String.self, found: storedValue) }
        self = value
    }

    public func storedValue() -> StoredValue { .string(self) }
}
