#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The decoders' conversions from a stored value to the leaf types Codable asks
// for. Each takes the coding path as an autoclosure so that the path is only
// built when a conversion fails.
extension StoredValue {
    func boolValue(at path: @autoclosure () -> CodingPathNode) throws -> Bool {
        guard case .bool(let bool) = self else {
            throw StorageError.codingTypeMismatch(expected: "a boolean", found: self, at: path())
        }
        return bool
    }

    func stringValue(at path: @autoclosure () -> CodingPathNode) throws -> String {
        guard case .string(let string) = self else {
            throw StorageError.codingTypeMismatch(expected: "a string", found: self, at: path())
        }
        return string
    }

    /// Accepts both integer cases, and a double whose value is a whole number,
    /// because stores that keep JSON-ish text can not tell `3` from `3.0`. The
    /// double must lie within the 64-bit range, the widest integer a stored
    /// value holds, so a 128-bit integer never reads what it could not store.
    func integerValue<Integer: FixedWidthInteger>(
        as type: Integer.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> Integer {
        switch self {
        case .signedInteger(let signed):
            if let integer = Integer(exactly: signed) { return integer }
        case .unsignedInteger(let unsigned):
            if let integer = Integer(exactly: unsigned) { return integer }
        case .double(let double):
            guard double.isFinite else {
                throw StorageError.codingTypeMismatch(
                    expected: "an integer", found: "a floating-point number that is not finite", at: path())
            }
            guard double.rounded(.towardZero) == double else {
                throw StorageError.codingTypeMismatch(
                    expected: "an integer", found: "a floating-point number with a fractional part", at: path())
            }
            if let signed = Int64(exactly: double), let integer = Integer(exactly: signed) { return integer }
            if let unsigned = UInt64(exactly: double), let integer = Integer(exactly: unsigned) { return integer }
        default:
            throw StorageError.codingTypeMismatch(expected: "an integer", found: self, at: path())
        }
        throw StorageError.codingOutOfRange(self, target: "\(Integer.self)", at: path())
    }

    /// Accepts integers as well, rounding the ones a double can not hold exactly.
    func doubleValue(at path: @autoclosure () -> CodingPathNode) throws -> Double {
        switch self {
        case .double(let double): return double
        case .signedInteger(let signed): return Double(signed)
        case .unsignedInteger(let unsigned): return Double(unsigned)
        default: throw StorageError.codingTypeMismatch(expected: "a floating-point number", found: self, at: path())
        }
    }

    /// Rejects finite values that would become infinite, rather than silently
    /// turning a large number into infinity.
    func floatValue(at path: @autoclosure () -> CodingPathNode) throws -> Float {
        let double = try doubleValue(at: path())
        let float = Float(double)
        if double.isFinite && !float.isFinite {
            throw StorageError.codingOutOfRange(self, target: "Float", at: path())
        }
        return float
    }

    /// Accepts an ISO 8601 string as well, with or without fractional seconds,
    /// for stores that can only keep text.
    func dateValue(at path: @autoclosure () -> CodingPathNode) throws -> Date {
        switch self {
        case .date(let date):
            return date
        case .string(let string):
            if let date = Date(iso8601String: string) { return date }
            throw StorageError.codingInvalidContents(
                expected: "a date", found: "a string that is not an ISO 8601 date", at: path())
        default:
            throw StorageError.codingTypeMismatch(expected: "a date", found: self, at: path())
        }
    }

    /// Accepts a base64 string as well, for stores that can only keep text.
    func dataValue(at path: @autoclosure () -> CodingPathNode) throws -> Data {
        switch self {
        case .data(let data):
            return data
        case .string(let string):
            if let data = Data(base64Encoded: string) { return data }
            throw StorageError.codingInvalidContents(
                expected: "data", found: "a string that is not valid base64", at: path())
        default:
            throw StorageError.codingTypeMismatch(expected: "data", found: self, at: path())
        }
    }

    func urlValue(at path: @autoclosure () -> CodingPathNode) throws -> URL {
        let string = try stringValue(at: path())
        guard let url = URL(string: string) else {
            throw StorageError.codingInvalidContents(
                expected: "a URL", found: "a string that is not a valid URL", at: path())
        }
        return url
    }

    func uuidValue(at path: @autoclosure () -> CodingPathNode) throws -> UUID {
        let string = try stringValue(at: path())
        guard let uuid = UUID(uuidString: string) else {
            throw StorageError.codingInvalidContents(
                expected: "a UUID", found: "a string that is not a valid UUID", at: path())
        }
        return uuid
    }

    /// The value of a `DirectlyCodedType`, read from its natural case.
    ///
    /// The counterpart of `directlyEncoded(_:)`; the caller has established
    /// that `Value` is the type `type` stands for.
    func directlyDecoded<Value: Decodable>(
        _ type: DirectlyCodedType,
        as valueType: Value.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> Value {
        switch type {
        case .string: DirectlyCodedType.identity(try stringValue(at: path()), as: Value.self)
        case .int: DirectlyCodedType.identity(try integerValue(as: Int.self, at: path()), as: Value.self)
        case .double: DirectlyCodedType.identity(try doubleValue(at: path()), as: Value.self)
        case .bool: DirectlyCodedType.identity(try boolValue(at: path()), as: Value.self)
        case .int64: DirectlyCodedType.identity(try integerValue(as: Int64.self, at: path()), as: Value.self)
        case .date: DirectlyCodedType.identity(try dateValue(at: path()), as: Value.self)
        case .data: DirectlyCodedType.identity(try dataValue(at: path()), as: Value.self)
        case .url: DirectlyCodedType.identity(try urlValue(at: path()), as: Value.self)
        case .uuid: DirectlyCodedType.identity(try uuidValue(at: path()), as: Value.self)
        }
    }

    // Both styles are tried because some Foundation versions only parse the
    // exact form a style describes; fractional first, as it keeps precision.
}
