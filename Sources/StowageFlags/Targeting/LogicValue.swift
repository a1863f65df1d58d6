#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

/// A value as a JsonLogic rule sees it: JSON's kinds, with every number a
/// `Double`, as in JavaScript, whose semantics json-logic-js (and so flagd's
/// targeting) follows.
package enum LogicValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([LogicValue])
    case object([String: LogicValue])

    /// `value` as a rule sees it: integers become doubles; data becomes its
    /// Base64 text and a date its ISO 8601 text, as their JSON text holds them.
    package init(_ value: StoredValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .signedInteger(let integer): self = .number(Double(integer))
        case .unsignedInteger(let integer): self = .number(Double(integer))
        case .double(let double): self = .number(double)
        case .string(let string): self = .string(string)
        case .data(let data): self = .string(data.base64EncodedString())
        case .date(let date): self = .string(date.iso8601String)
        case .array(let elements): self = .array(elements.map(LogicValue.init))
        case .dictionary(let entries): self = .object(entries.mapValues(LogicValue.init))
        }
    }

    /// The value as a store keeps it: a whole number within 64 bits becomes
    /// an integer; `nil` for a number JSON can not hold (NaN, an infinity).
    package var storedValue: StoredValue? {
        switch self {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .number(let number):
            guard number.isFinite else { return nil }
            if number.rounded(.towardZero) == number, let integer = Int64(exactly: number) { return .signedInteger(integer) }
            return .double(number)
        case .string(let string): return .string(string)
        case .array(let elements):
            var stored: [StoredValue] = []
            stored.reserveCapacity(elements.count)
            for element in elements {
                guard let value = element.storedValue else { return nil }
                stored.append(value)
            }
            return .array(stored)
        case .object(let entries):
            var stored: [String: StoredValue] = [:]
            for (key, element) in entries {
                guard let value = element.storedValue else { return nil }
                stored[key] = value
            }
            return .dictionary(stored)
        }
    }
}
