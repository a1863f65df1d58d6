#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The neutral representation every store reads and writes.
///
/// A store only has to keep these values; `Storable` turns typed Swift values
/// into them and back. Integers are kept exactly across the whole `Int64` and
/// `UInt64` range: `.signedInteger` holds every value that fits in `Int64`, and
/// `.unsignedInteger` the ones above `Int64.max`. Equality treats the two integer
/// cases as numbers, so `.signedInteger(5) == .unsignedInteger(5)`, and compares
/// doubles by their bits, so `0.0` and `-0.0` differ (a change of sign is a
/// change to store and to observe) while NaN equals NaN. A date whose time is
/// NaN equals another such date for the same reason: `==` must be reflexive
/// for a value to be stored, compared and hashed.
///
/// ```swift
/// let value: StoredValue = ["name": "Ada", "launches": 3, "beta": true]
/// ```
public enum StoredValue: Sendable {
    case null
    case bool(Bool)
    case signedInteger(Int64)
    case unsignedInteger(UInt64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([StoredValue])
    case dictionary([String: StoredValue])

    /// Makes the canonical integer case for `value`: signed when it fits `Int64`.
    package static func integer<Integer: BinaryInteger>(_ value: Integer) -> StoredValue? {
        if let signed = Int64(exactly: value) { return .signedInteger(signed) }
        if let unsigned = UInt64(exactly: value) { return .unsignedInteger(unsigned) }
        return nil
    }

    /// A short name of the case, used in error messages so they never quote a value.
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .signedInteger, .unsignedInteger: "an integer"
        case .double: "a floating-point number"
        case .string: "a string"
        case .data: "data"
        case .date: "a date"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}

extension StoredValue: Equatable {
    public static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.signedInteger(a), .signedInteger(b)): a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): a == b
        case let (.signedInteger(a), .unsignedInteger(b)), let (.unsignedInteger(b), .signedInteger(a)):
            a >= 0 && UInt64(a) == b
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b || (a.timeIntervalSinceReferenceDate.isNaN && b.timeIntervalSinceReferenceDate.isNaN)
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        default: false
        }
    }
}

extension StoredValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        // Both integer cases hash the same way because they compare as numbers.
        case .signedInteger(let value) where value >= 0: hasher.combine(2); hasher.combine(UInt64(value))
        case .signedInteger(let value): hasher.combine(2); hasher.combine(value)
        case .unsignedInteger(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .data(let value): hasher.combine(5); hasher.combine(value)
        case .date(let value) where value.timeIntervalSinceReferenceDate.isNaN: hasher.combine(6); hasher.combine(Double.nan.bitPattern)
        case .date(let value): hasher.combine(6); hasher.combine(value)
        case .array(let value): hasher.combine(7); hasher.combine(value)
        case .dictionary(let value): hasher.combine(8); hasher.combine(value)
        }
    }
}
