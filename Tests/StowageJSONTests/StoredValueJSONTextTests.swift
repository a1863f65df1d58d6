import Foundation
import Stowage
import StowageJSON
import Testing

/// `StoredValue.jsonText()` and `init(jsonText:)`, the file store's exact
/// JSON form made public for stores that keep values as text.
struct StoredValueJSONTextTests {
    @Test func extremesReadBackAsTheSameValue() throws {
        let values: [StoredValue] = [
            .signedInteger(.min), .unsignedInteger(.max), .double(-0.0), .double(0.1), .double(1e300),
            .string("nul \u{0} tab \t quote \" é"), .bool(false),
            .array([1, "two", .array([]), .dictionary([:])]), .dictionary(["b": 2, "a": ["c": .null]]),
        ]
        for value in values {
            let text = try value.jsonText()
            let back = try StoredValue(jsonText: text)
            #expect(back == value, "\(text)")
            if case .double(let double) = value, case .double(let read) = back {
                #expect(read.sign == double.sign, "\(text)")
            }
        }
        #expect(try StoredValue.double(-0.0).jsonText() == "-0.0")
        #expect(try StoredValue.dictionary(["b": 1, "a": 2]).jsonText() == #"{"a":2,"b":1}"#)
    }

    @Test func whatJSONCanNotHoldIsAnErrorNamingIt() throws {
        let nan = #expect(throws: StorageError.self) { try StoredValue.double(.nan).jsonText() }
        #expect(nan?.code == .encodingFailed)
        let broken = #expect(throws: StorageError.self) { try StoredValue(jsonText: "{\"a\": ") }
        #expect(broken?.code == .invalidJSON)
    }

    /// A date keeps its milliseconds, read back through `Date`.
    @Test func aDateKeepsItsMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let text = try StoredValue.date(date).jsonText()
        let back = try Date(storedValue: StoredValue(jsonText: text))
        #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005, "\(text)")
    }
}
