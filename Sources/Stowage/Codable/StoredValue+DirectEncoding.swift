#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoredValue {
    /// The stored form of a value of a `DirectlyCodedType`, or `nil` for any
    /// other type, which then encodes itself.
    static func directlyEncoded<Value: Encodable>(_ value: Value) -> StoredValue? {
        guard let type = DirectlyCodedType(Value.self) else { return nil }
        return switch type {
        case .string: .string(DirectlyCodedType.identity(value, as: String.self))
        case .int: .signedInteger(Int64(DirectlyCodedType.identity(value, as: Int.self)))
        case .double: .double(DirectlyCodedType.identity(value, as: Double.self))
        case .bool: .bool(DirectlyCodedType.identity(value, as: Bool.self))
        case .int64: .signedInteger(DirectlyCodedType.identity(value, as: Int64.self))
        case .date: .date(DirectlyCodedType.identity(value, as: Date.self))
        case .data: .data(DirectlyCodedType.identity(value, as: Data.self))
        case .url: .string(DirectlyCodedType.identity(value, as: URL.self).absoluteString)
        case .uuid: .string(DirectlyCodedType.identity(value, as: UUID.self).uuidString)
        }
    }

    /// The canonical integer case for an unsigned value: signed when it fits
    /// `Int64`, so that equal numbers are stored alike whatever their width.
    static func canonicalInteger<Integer: UnsignedInteger & FixedWidthInteger>(_ value: Integer) -> StoredValue {
        // `integer(_:)` only fails above `UInt64.max`, which the callers' widths never reach.
        StoredValue.integer(value) ?? .unsignedInteger(UInt64(truncatingIfNeeded: value))
    }

    /// The canonical integer case for a 128-bit value, which only has one when
    /// the value fits 64 bits.
    static func wideInteger<Integer: FixedWidthInteger>(
        _ value: Integer,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> StoredValue {
        guard let stored = StoredValue.integer(value) else {
            throw StorageError.codingUnrepresentable(
                "the \(Integer.self) value does not fit in 64 bits, the widest integer a stored value holds", at: path())
        }
        return stored
    }
}
