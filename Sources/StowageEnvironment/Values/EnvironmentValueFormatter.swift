#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON

/// Writes a stored value as the text of an environment variable, in the form
/// `EnvironmentValueParser` reads back: arrays and dictionaries as compact JSON.
enum EnvironmentValueFormatter {
    static func text(for value: StoredValue) -> String {
        switch value {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .signedInteger(let value): String(value)
        case .unsignedInteger(let value): String(value)
        case .double(let value): "\(value)"
        case .string(let value): value
        case .data(let value): value.base64EncodedString()
        case .date(let value): value.iso8601String
        case .array, .dictionary:
            // JSON has no NaN or infinity; such an element is written as null.
            String(decoding: (try? JSONSerializer(formatting: .compact).serialize(value.replacingNonFiniteDoubles)) ?? [], as: UTF8.self)
        }
    }
}

extension StoredValue {
    fileprivate var replacingNonFiniteDoubles: StoredValue {
        switch self {
        case .double(let value) where !value.isFinite: .null
        case .array(let elements): .array(elements.map(\.replacingNonFiniteDoubles))
        case .dictionary(let members): .dictionary(members.mapValues(\.replacingNonFiniteDoubles))
        default: self
        }
    }
}
