#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoredValue: CustomStringConvertible {
    /// A compact, JSON-like rendering for logs and test failures.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .signedInteger(let value): String(value)
        case .unsignedInteger(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .data(let value): "<\(value.count) bytes>"
        case .date(let value): "date(\(value.timeIntervalSince1970))"
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let values):
            "[" + values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
        }
    }
}
