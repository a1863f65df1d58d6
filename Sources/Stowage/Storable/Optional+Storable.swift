/// `nil` is kept as `.null` inside collections; at the top level of a reference
/// or wrapper, writing `nil` removes the key instead (see ``StorageReference``).
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

/// Lets generic code see that a value is an optional holding `nil`, so that
/// writing `nil` through a reference removes the key rather than storing null.
package protocol OptionalStorable {
    var isNone: Bool { get }
    static var none: Self { get }
}

extension Optional: OptionalStorable {
    package var isNone: Bool { self == nil }
}
