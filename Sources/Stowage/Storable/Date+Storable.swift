#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Dates are kept as `.date`; stores that keep only text hand back ISO 8601, which reads too.
extension Date: Storable {
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .date(let value): self = value
        case .string(let text):
            guard let value = Date(iso8601String: text) else {
                throw StorageError(code: .invalidValue, reason: "expected Date, found a string that is not an ISO 8601 date.")
            }
            self = value
        default: throw StorageError.typeMismatch(expected: Date.self, found: storedValue)
        }
    }

    public func storedValue() -> StoredValue { .date(self) }

    /// Parses ISO 8601 with or without fractional seconds, as files written by hand or by other tools hold both.
    package init?(iso8601String text: String) {
        if let value = try? Self.fractionalISO8601.parse(text) {
            self = value
        } else if let value = try? Self.wholeSecondISO8601.parse(text) {
            self = value
        } else {
            return nil
        }
    }

    /// The ISO 8601 text stores use for dates, with milliseconds so a round trip keeps sub-second precision.
    package var iso8601String: String {
        Self.fractionalISO8601.format(self)
    }

    // Made once: a format style costs more to build than a date costs to parse.
    private static let fractionalISO8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSecondISO8601 = Date.ISO8601FormatStyle()
}
