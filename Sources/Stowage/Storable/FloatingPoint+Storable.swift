/// `Double` and `Float` are kept as `.double`; a whole number reads as one too.
///
/// `Codable` in the constraint makes this more specific than the `Codable`
/// default, which both would otherwise also match.
extension Storable where Self: BinaryFloatingPoint & Codable {
    public init(storedValue: StoredValue) throws {
        let wide: Double
        switch storedValue {
        case .double(let value): wide = value
        case .signedInteger(let value): wide = Double(value)
        case .unsignedInteger(let value): wide = Double(value)
        default: throw StorageError.typeMismatch(expected: Self.self, found: storedValue)
        }
        let narrow = Self(wide)
        guard narrow.isFinite || !wide.isFinite else {
            throw StorageError(code: .valueOutOfRange, reason: "expected \(Self.self), found a number beyond \(Self.self)'s range.")
        }
        self = narrow
    }

    public func storedValue() -> StoredValue { .double(Double(self)) }
}

extension Double: Storable {}
extension Float: Storable {}
