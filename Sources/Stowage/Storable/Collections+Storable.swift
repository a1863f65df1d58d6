extension Array: Storable where Element: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .array(let elements) = storedValue else { throw StorageError.typeMismatch(expected: Self.self, found: storedValue) }
        self = try elements.enumerated().map { index, element in
            do { return try Element(storedValue: element) } catch let error as StorageError {
                throw error.prefixingReason("at index \(index): ")
            }
        }
    }

    public func storedValue() throws -> StoredValue { .array(try map { try $0.storedValue() }) }
}

extension Set: Storable where Element: Storable {
    public init(storedValue: StoredValue) throws {
        self = Set(try [Element](storedValue: storedValue))
    }

    /// Elements in a canonical order, not the set's iteration order, so equal
    /// sets have equal stored forms.
    public func storedValue() throws -> StoredValue {
        .array(try map { try $0.storedValue() }.sorted(by: StoredValue.canonicallyPrecedes))
    }
}

extension Dictionary: Storable where Key == String, Value: Storable {
    public init(storedValue: StoredValue) throws {
        guard case .dictionary(let entries) = storedValue else { throw StorageError.typeMismatch(expected: Self.self, found: storedValue) }
        self = try entries.mapValues { try Value(storedValue: $0) }
    }

    public func storedValue() throws -> StoredValue { .dictionary(try mapValues { try $0.storedValue() }) }
}
