#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

/// Turns values into the form they take in the file, at the moment they are set.
///
/// `Data` becomes its Base64 string and `Date` its ISO 8601 string, as the
/// serializer writes them. Doing it when the value is set, not when the file is
/// written, means the store holds exactly what a reread of the file gives, so a
/// reread never looks like a change; and a value JSON can not hold (NaN,
/// infinity, a date without ISO 8601 text, nesting beyond the parser's
/// limit) is refused by the setter,
/// naming the key, instead of failing a later background write.
enum JSONFileRepresentation {
    static func normalized(_ value: StoredValue, forKey key: String, maximumDepth: Int) throws(StorageError) -> StoredValue {
        do {
            return try normalized(value, depth: 0, maximumDepth: maximumDepth)
        } catch {
            throw StorageError(code: .encodingFailed, key: key, reason: error.reason)
        }
    }

    private struct Refusal: Error {
        var reason: String
    }

    private static func normalized(_ value: StoredValue, depth: Int, maximumDepth: Int) throws(Refusal) -> StoredValue {
        switch value {
        case .null, .bool, .signedInteger, .unsignedInteger, .string:
            return value
        case .double(let number):
            guard number.isFinite else {
                throw Refusal(reason: "JSON has no form for \(number.isNaN ? "NaN" : "infinity"); store a finite number, or nil.")
            }
            return value
        case .data(let bytes):
            return .string(bytes.base64EncodedString())
        case .date(let date):
            guard date.hasISO8601Form else { throw Refusal(reason: Date.withoutISO8601FormReason) }
            return .string(date.iso8601String)
        case .array(let elements):
            guard depth + 1 <= maximumDepth else { throw tooDeep(maximumDepth) }
            guard elements.contains(where: needsNormalizing) else { return value }
            var result = [StoredValue]()
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try normalized(element, depth: depth + 1, maximumDepth: maximumDepth)) }
            return .array(result)
        case .dictionary(let members):
            guard depth + 1 <= maximumDepth else { throw tooDeep(maximumDepth) }
            guard members.values.contains(where: needsNormalizing) else { return value }
            var result = [String: StoredValue](minimumCapacity: members.count)
            for (name, member) in members { result[name] = try normalized(member, depth: depth + 1, maximumDepth: maximumDepth) }
            return .dictionary(result)
        }
    }

    private static func tooDeep(_ maximumDepth: Int) -> Refusal {
        Refusal(reason: "the value nests arrays and objects more than \(maximumDepth) levels deep, more than the file may hold.")
    }

    /// Whether a value differs from its file form, or holds containers whose depth must be checked.
    private static func needsNormalizing(_ value: StoredValue) -> Bool {
        switch value {
        case .null, .bool, .signedInteger, .unsignedInteger, .string: false
        case .double(let number): !number.isFinite
        case .data, .date, .array, .dictionary: true
        }
    }
}
