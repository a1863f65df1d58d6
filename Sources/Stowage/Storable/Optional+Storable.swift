/// `nil` is kept as `.null` inside collections; at the top level, writing a
/// value whose stored form is null removes the key instead.
extension Optional: Storable where Wrapped: Storable {
    public init(storedValue: StoredValue) throws {
        if case .null = storedValue {
            self = .none
        } else {
            self = .some(try Wrapped(storedValue: storedValue))
        }
    }

    public func storedValue() throws -> StoredValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.storedValue()
        }
    }
}
