#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The ISO 8601 text of dates, for stores that keep only text.
extension Date {
    /// Parses ISO 8601 with or without fractional seconds, as files written by
    /// hand or by other tools hold both.
    ///
    /// The whole text must be the date, and the date must have the form
    /// `iso8601String` writes back: the format style's own `parse` stops
    /// where a date ends and ignores the rest ("…00Zjunk" read as a date),
    /// and reads years of any length, so a date in the year 308021 was read,
    /// and could never be written back as text that reads the same.
    package init?(iso8601String text: String) {
        guard let value = Self.wholeDate(in: text, style: Self.fractionalISO8601) ?? Self.wholeDate(in: text, style: Self.wholeSecondISO8601),
            value.hasISO8601Form
        else { return nil }
        self = value
    }

    private static func wholeDate(in text: String, style: Date.ISO8601FormatStyle) -> Date? {
        guard let (end, value) = try? style.consuming(text, startingAt: text.startIndex, in: text.startIndex..<text.endIndex),
            end == text.endIndex
        else { return nil }
        return value
    }

    /// The ISO 8601 text stores use for dates, with milliseconds so a round trip keeps sub-second precision.
    ///
    /// The date is rounded to the nearest millisecond, and the milliseconds are
    /// written by hand after the whole seconds, because the format style
    /// truncates: the date read from "…00.004Z" lies a hair below 4 ms as a
    /// `Double` and came out as "…00.003Z", so a date lost a millisecond each
    /// time it was read and written back.
    package var iso8601String: String {
        let milliseconds = (timeIntervalSinceReferenceDate * 1000).rounded()
        // Beyond this (about 30,000 years away) the style clamps anyway, and an `Int64` would overflow.
        guard abs(milliseconds) < 1e15 else { return Self.fractionalISO8601.format(self) }
        let (seconds, fraction) = Int64(milliseconds).quotientAndRemainder(dividingBy: 1000)
        let wholeSeconds = fraction < 0 ? seconds - 1 : seconds
        let text = Self.wholeSecondISO8601.format(Date(timeIntervalSinceReferenceDate: Double(wholeSeconds)))
        guard text.hasSuffix("Z") else { return Self.fractionalISO8601.format(self) }
        let digits = String(fraction < 0 ? fraction + 1000 : fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Whether `iso8601String` gives text that `init(iso8601String:)` reads
    /// back as the same text: a date in the years 0 through 99,999. The format
    /// style writes earlier years with a sign that no parser here reads, clamps
    /// NaN and infinite dates (NaN becomes the year -4712), and beyond about
    /// the year 140,000 a `Double` no longer holds milliseconds.
    package var hasISO8601Form: Bool {
        // 0000-01-01T00:00:00.000Z through 99999-12-31T23:59:59.999Z, in the milliseconds `iso8601String` rounds to.
        (-63_145_699_200_000...3_092_549_673_599_999).contains((timeIntervalSinceReferenceDate * 1000).rounded())
    }

    /// Why a date without an ISO 8601 form can not be written as text, for the errors of stores that keep text.
    package static let withoutISO8601FormReason =
        "a date outside the years 0 through 99,999, or whose time is NaN or infinite, has no ISO 8601 text that reads back as the same date."

    // Made once: a format style costs more to build than a date costs to parse.
    private static let fractionalISO8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSecondISO8601 = Date.ISO8601FormatStyle()
}
