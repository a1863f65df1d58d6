/// Shared decoding for every integer width: exact conversions only, so an
/// out-of-range value is an error instead of a trap or a silent wrap.
///
/// A whole double reads only within the 64-bit range, the widest integer a
/// store keeps: a 128-bit integer read from 2^64 could not be stored again.
extension BinaryInteger where Self: Storable {
    package init(exactlyFrom storedValue: StoredValue) throws {
        let converted: Self?
        switch storedValue {
        case .signedInteger(let value): converted = Self(exactly: value)
        case .unsignedInteger(let value): converted = Self(exactly: value)
        case .double(let value) where value.isFinite && value.rounded(.towardZero) == value:
            if let signed = Int64(exactly: value) {
                converted = Self(exactly: signed)
            } else if let unsigned = UInt64(exactly: value) {
                converted = Self(exactly: unsigned)
            } else {
                throw StorageError(
                    code: .valueOutOfRange,
                    reason: "expected \(Self.self), found a number beyond 64 bits, the widest integer a store keeps."
                )
            }
        case .double:
            throw StorageError.typeMismatch(expected: Self.self, found: storedValue, detail: "not a whole number")
        default:
            throw StorageError.typeMismatch(expected: Self.self, found: storedValue)
        }
        guard let converted else {
            throw StorageError(
                code: .valueOutOfRange,
                reason: "expected \(Self.self) (\(Self.rangeDescription)), found a number outside that range."
            )
        }
        self = converted
    }

    package func exactStoredValue() throws -> StoredValue {
        guard let value = StoredValue.integer(self) else {
            throw StorageError(code: .encodingFailed, reason: "\(Self.self) value does not fit in 64 bits, the widest integer a store keeps.")
        }
        return value
    }

    private static var rangeDescription: String {
        if let fixedWidth = Self.self as? any FixedWidthInteger.Type {
            return "\(fixedWidth.minDescription)...\(fixedWidth.maxDescription)"
        }
        return "its range"
    }
}

extension FixedWidthInteger {
    fileprivate static var minDescription: String { String(describing: Self.min) }
    fileprivate static var maxDescription: String { String(describing: Self.max) }
}

/// Every integer width reads and writes through the exact conversions above.
///
/// `Codable` in the constraint makes this more specific than the `Codable`
/// default, which every standard integer would otherwise also match.
extension Storable where Self: FixedWidthInteger & Codable {
    public init(storedValue: StoredValue) throws { try self.init(exactlyFrom: storedValue) }
    public func storedValue() throws -> StoredValue { try exactStoredValue() }
}

extension Int: Storable {}
extension Int8: Storable {}
extension Int16: Storable {}
extension Int32: Storable {}
extension Int64: Storable {}
extension Int128: Storable {}
extension UInt: Storable {}
extension UInt8: Storable {}
extension UInt16: Storable {}
extension UInt32: Storable {}
extension UInt64: Storable {}
extension UInt128: Storable {}
