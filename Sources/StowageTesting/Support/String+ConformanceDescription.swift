#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension String {
    /// The longest description quoted in a message before it is shortened.
    private static let descriptionLimit = 160

    /// `value` as a message quotes it: as the debugger shows it, with
    /// optionals unwrapped ("3", "nil"), dates to the microsecond, and long
    /// values (a 64 KB string, say) cut short with their length given.
    init(conformanceDescribing value: some Any) {
        self.init(conformanceShortening: Self.fullDescription(of: value))
    }

    /// `text`, cut short with its length given when it is too long to quote whole.
    init(conformanceShortening text: String) {
        let count = text.count
        if count <= Self.descriptionLimit {
            self = text
        } else {
            self = "\(text.prefix(Self.descriptionLimit - 40))… (\(count) characters in all)"
        }
    }

    /// The text with a full stop at its end, unless it already ends in one.
    var endingSentence: String {
        hasSuffix(".") ? self : self + "."
    }

    fileprivate static func fullDescription(of value: some Any) -> String {
        switch value {
        case let optional as any DescribableOptional:
            return optional.unwrappedDescription
        case let date as Date:
            return "Date(timeIntervalSince1970: \(date.timeIntervalSince1970))"
        case let data as Data where data.count <= 16:
            return "Data([" + data.map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: ", ") + "])"
        case let data as Data:
            return "Data(\(data.count) bytes)"
        default:
            return String(reflecting: value)
        }
    }
}

/// Lets a description see through an optional of any wrapped type.
private protocol DescribableOptional {
    var unwrappedDescription: String { get }
}

extension Optional: DescribableOptional {
    fileprivate var unwrappedDescription: String {
        switch self {
        case .none: "nil"
        case .some(let wrapped): String.fullDescription(of: wrapped)
        }
    }
}
