/// An enum or wrapper type with a storable raw value only needs `extension Theme: Storable {}`.
extension Storable where Self: RawRepresentable, RawValue: Storable {
    public init(storedValue: StoredValue) throws { try self.init(rawStoredValue: storedValue) }
    public func storedValue() throws -> StoredValue { try rawValue.storedValue() }
}

/// The raw value wins when a type is both `RawRepresentable` and `Codable`: it
/// is the smaller, hand-editable form, and it is what `Codable` itself would use
/// for a plain enum.
extension Storable where Self: RawRepresentable & Codable, RawValue: Storable {
    public init(storedValue: StoredValue) throws { try self.init(rawStoredValue: storedValue) }
    public func storedValue() throws -> StoredValue { try rawValue.storedValue() }
}

extension RawRepresentable where RawValue: Storable {
    fileprivate init(rawStoredValue storedValue: StoredValue) throws {
        let rawValue = try RawValue(storedValue: storedValue)
        guard let value = Self(rawValue: rawValue) else {
            throw StorageError(code: .invalidValue, reason: "expected \(Self.self), found a raw value that is not one of its cases.")
        }
        self = value
    }
}
