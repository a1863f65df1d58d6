extension Double: Storable {
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .double(let value): self = value
        case .signedInteger(let value): self = Double(value)
        case .unsignedInteger(let value): self = Double(value)
        default: throw StorageError.typeMismatch(expected: Double.self, found: storedValue)
        }
    }

    public func storedValue() -> StoredValue { .double(self) }
}

extension Float: Storable {
    public init(storedValue: StoredValue) throws {
        let wide = try Double(storedValue: storedValue)
        let narrow = Float(wide)
        guard narrow.isFinite || !wide.isFinite else {
            throw StorageError(code: .valueOutOfRange, reason: "expected Float, found a number beyond Float's range.")
        }
        self = narrow
    }

    public func storedValue() -> StoredValue { .double(Double(self)) }
}
