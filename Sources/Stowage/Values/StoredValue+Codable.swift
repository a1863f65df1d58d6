#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lets a store of your own keep `StoredValue`s with any Codable encoder
/// (`JSONEncoder`, `PropertyListEncoder`, …) in a few lines.
///
/// Dates are written as ISO 8601 text and data as base64 text, the forms the
/// built-in `Storable` conformances read back, so typed values round-trip
/// even through a format that has neither. A format may not tell a whole
/// double from an integer (`2.0` comes back as `2`), which reads back as the
/// same `Double`; `-0.0` keeps its sign. Infinity and NaN go through only
/// where the encoder takes them (`PropertyListEncoder` does; `JSONEncoder`
/// needs its `nonConformingFloatEncodingStrategy`).
extension StoredValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [StoredValue] = []
            while !array.isAtEnd { elements.append(try array.decode(StoredValue.self)) }
            self = .array(elements)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var entries: [String: StoredValue] = [:]
            for key in object.allKeys { entries[key.stringValue] = try object.decode(StoredValue.self, forKey: key) }
            self = .dictionary(entries)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            // An encoder may write -0.0 as "-0", which decodes as the integer 0: only a Double keeps the sign.
            if value == 0, let double = try? single.decode(Double.self), double.sign == .minus {
                self = .double(double)
            } else {
                self = .signedInteger(value)
            }
        } else if let value = try? single.decode(UInt64.self) {
            self = .unsignedInteger(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .dictionary(let entries):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in entries { try container.encode(value, forKey: AnyCodingKey(key)) }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .signedInteger(let value): try container.encode(value)
            case .unsignedInteger(let value): try container.encode(value)
            case .double(let value) where value == 0 && value.sign == .plus:
                // Binary property lists share one object among equal numbers, and 0.0 == -0.0:
                // as an integer, a positive zero can not take the sign of a -0.0 elsewhere in the file.
                try container.encode(0 as Int64)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .data(let value): try container.encode(value.base64EncodedString())
            case .date(let value):
                guard value.hasISO8601Form else {
                    // The error carries the time, not the date: describing a date whose time is NaN traps in Foundation.
                    throw EncodingError.invalidValue(
                        value.timeIntervalSinceReferenceDate,
                        .init(codingPath: encoder.codingPath, debugDescription: Date.withoutISO8601FormReason))
                }
                try container.encode(value.iso8601String)
            case .array, .dictionary: break  // handled above
            }
        }
    }
}

/// A coding key for arbitrary dictionary keys.
private struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
