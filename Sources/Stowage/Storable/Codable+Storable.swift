/// A `Codable` type becomes storable with `extension Profile: Storable {}`; it is
/// kept as nested values (readable and hand-editable in a file), not as a blob.
extension Storable where Self: Codable {
    public init(storedValue: StoredValue) throws {
        self = try StoredValueDecoder().decode(Self.self, from: storedValue)
    }

    public func storedValue() throws -> StoredValue {
        try StoredValueEncoder().encode(self)
    }
}
