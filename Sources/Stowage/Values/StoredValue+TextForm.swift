#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoredValue {
    /// Whether the value holds a date that text can not hold, so stores that
    /// keep text (a JSON file, the environment) refuse it when it is set,
    /// naming the key, instead of writing text that reads back as another date.
    package var holdsDateWithoutISO8601Form: Bool {
        switch self {
        case .date(let value): !value.hasISO8601Form
        case .array(let elements): elements.contains(where: \.holdsDateWithoutISO8601Form)
        case .dictionary(let members): members.values.contains(where: \.holdsDateWithoutISO8601Form)
        case .null, .bool, .signedInteger, .unsignedInteger, .double, .string, .data: false
        }
    }
}
