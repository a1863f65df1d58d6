#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

extension StorageConformanceSuite {
    func checkRoundTripOfScalars(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.scalars")
        trip.expect(true)
        trip.expect(false)

        expectIntegers(Int.self, in: &trip)
        expectIntegers(Int8.self, in: &trip)
        expectIntegers(Int16.self, in: &trip)
        expectIntegers(Int32.self, in: &trip)
        expectIntegers(Int64.self, in: &trip)
        expectIntegers(UInt.self, in: &trip)
        expectIntegers(UInt8.self, in: &trip)
        expectIntegers(UInt16.self, in: &trip)
        expectIntegers(UInt32.self, in: &trip)
        expectIntegers(UInt64.self, in: &trip)
        // The 128-bit types are storable within the 64-bit range a store keeps.
        trip.expect(Int128(Int64.min), named: "Int128 holding Int64.min")
        trip.expect(Int128(UInt64.max), named: "Int128 holding UInt64.max")
        trip.expect(UInt128(UInt64.max), named: "UInt128 holding UInt64.max")

        var doubles: [(Double, String)] = [
            (3.141592653589793, "pi"), (0.1, "0.1"), (-2.5, "-2.5"), (2, "a whole number"), (1e-300, "tiny"),
            (.leastNormalMagnitude, "Double.leastNormalMagnitude"), (.leastNonzeroMagnitude, "Double.leastNonzeroMagnitude"),
            (1e300, "huge"), (.greatestFiniteMagnitude, "Double.greatestFiniteMagnitude"),
            (-.greatestFiniteMagnitude, "-Double.greatestFiniteMagnitude"), (0.0, "0.0"), (-0.0, "-0.0"),
        ]
        if options.supportsNonFiniteDoubles {
            doubles += [(.infinity, "Double.infinity"), (-.infinity, "-Double.infinity"), (.nan, "Double.nan")]
        }
        for (value, name) in doubles {
            trip.expect(value, named: name, matches: isIdentical)
        }

        var floats: [(Float, String)] = [
            (3.14159, "pi"), (-2.5, "-2.5"), (.leastNormalMagnitude, "Float.leastNormalMagnitude"),
            (.leastNonzeroMagnitude, "Float.leastNonzeroMagnitude"), (.greatestFiniteMagnitude, "Float.greatestFiniteMagnitude"),
            (0.0, "0.0"), (-0.0, "-0.0"),
        ]
        if options.supportsNonFiniteDoubles {
            floats += [(.infinity, "Float.infinity"), (-.infinity, "-Float.infinity"), (.nan, "Float.nan")]
        }
        for (value, name) in floats {
            trip.expect(value, named: name, matches: isIdentical)
        }
    }

    /// The extremes of `type`, zero, -1 when signed, and an ordinary value.
    private func expectIntegers<Integer: FixedWidthInteger & Storable>(_ type: Integer.Type, in trip: inout RoundTripper<Storage>) {
        trip.expect(Integer.min, named: "\(Integer.self).min")
        trip.expect(Integer.max, named: "\(Integer.self).max")
        trip.expect(Integer.zero, named: "\(Integer.self) zero")
        trip.expect(42 as Integer, named: "\(Integer.self) 42")
        if let minusOne = Integer(exactly: -1) {
            trip.expect(minusOne, named: "\(Integer.self) -1")
        }
    }

    func checkRoundTripOfStrings(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.strings")
        let strings: [(String, String)] = [
            ("", "the empty string"),
            ("Hello, world", "plain ASCII"),
            ("héllo wörld – ünïcödé ß", "Latin with diacritics"),
            ("日本語のテキスト, 한국어, العربية, עברית", "CJK and right-to-left scripts"),
            ("👩‍👩‍👧‍👦🏳️‍🌈👍🏽🇫🇷", "emoji with joiners, modifiers and flags"),
            ("e\u{301} a\u{308} n\u{303} \u{1E0A}\u{323}", "combining marks"),
            ("\u{E9}", "a precomposed é"),
            ("a\u{0}b\u{0}", "NUL characters"),
            ("\u{0}", "a lone NUL"),
            ("line one\nline two\r\nline three\r", "line breaks"),
            ("tab\tseparated\u{B}\u{C}", "tabs and form feeds"),
            ("\"double\" and 'single' quotes, \\backslashes\\ and `backticks`", "quotes and backslashes"),
            ("<tag attr=\"x\"/> & {\"json\": [1, 2]} %s %@ $HOME ${X}", "markup and format specifiers"),
            ("\u{1}\u{1F}\u{7F}\u{1B}[31m", "control characters"),
            ("\u{FEFF}starts with a byte order mark", "a byte order mark"),
            ("\u{10FFFF}\u{FFFD}\u{E000}", "the last scalar, the replacement character and private use"),
            ("  padded  ", "leading and trailing spaces"),
            (String(repeating: "0123456789abcdef", count: 4096), "a 64 KB ASCII string"),
            (String(repeating: "Stowage ✓ ключ 鍵 🔑\n", count: 1500), "a long Unicode string"),
        ]
        for (value, name) in strings {
            trip.expect(value, named: name, matches: hasSameScalars)
        }
    }

    func checkRoundTripOfData(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.data")
        trip.expect(Data(), named: "empty Data")
        trip.expect(Data([0]), named: "a single zero byte")
        trip.expect(Data((0...255).map { UInt8($0) }), named: "every byte value in order")
        trip.expect(Data((0...255).reversed().map { UInt8($0) }), named: "every byte value in reverse")
        trip.expect(Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }), named: "64 KB of mixed bytes")
    }

    func checkRoundTripOfFoundationValues(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.foundation")
        let dates: [(Date, String)] = [
            (Date(timeIntervalSince1970: 0), "the Unix epoch"),
            (Date(timeIntervalSince1970: 1_700_000_000.123), "a date with milliseconds"),
            (Date(timeIntervalSince1970: 1_700_000_000.987_654), "a date with microseconds"),
            (Date(timeIntervalSince1970: -1_234_567.25), "a date before 1970"),
            (Date(timeIntervalSince1970: 4_102_444_800.5), "a date in 2100"),
            (Date(timeIntervalSinceReferenceDate: 0), "the reference date"),
            (Date(), "now"),
        ]
        for (value, name) in dates {
            trip.expect(value, named: name, matches: isWithinAMillisecond)
        }

        let urls = [
            "https://example.com",
            "https://user@example.com:8443/a/b/c?query=1&other=two%20words#fragment",
            "file:///tmp/a%20folder/file.txt",
            "mailto:ada@example.com",
            "urn:isbn:0451450523",
            "https://example.com/%E2%9C%93?q=%F0%9F%94%91",
        ]
        for text in urls {
            guard let url = URL(string: text) else {
                recorder.record("The suite could not make a URL from \"\(text)\" on this platform; that URL was left out.")
                continue
            }
            trip.expect(url, named: "the URL \(text)")
        }

        trip.expect(UUID(), named: "a random UUID")
        for text in ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"] {
            if let uuid = UUID(uuidString: text) {
                trip.expect(uuid, named: "the UUID \(text)")
            }
        }
    }

    func checkRoundTripOfOptionals(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        var trip = RoundTripper(storage: storage, reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.optionals")
        trip.expect(Int?.some(42), named: "Optional(42)")
        trip.expect(String?.some(""), named: "an optional holding the empty string")
        trip.expect([Int?](arrayLiteral: 1, nil, 3), named: "an array holding nil")
        trip.expect([String?](arrayLiteral: nil), named: "an array holding only nil")
        trip.expect(["present": "x", "absent": nil] as [String: String?], named: "a dictionary holding nil")

        // Writing nil through an optional reference, the store API and a wrapper removes the key.
        let key = "roundTrip.optionals.removed"
        let reference = storage.reference(forKey: key, as: Int?.self)
        _ = recorder.attempt("Writing Optional(5) through reference(forKey:as: Int?.self)") { try reference.set(5) }
        _ = recorder.attempt("Writing nil through reference(forKey:as: Int?.self)") { try reference.set(Int?.none) }
        expectAbsent(key, in: storage, after: "writing nil through a reference of type Int?", recorder)

        _ = recorder.attempt("Writing Optional(6) through set(_:forKey:)") { try storage.set(Int?.some(6), forKey: key) }
        _ = recorder.attempt("Writing nil through set(_:forKey:)") { try storage.set(Int?.none, forKey: key) }
        expectAbsent(key, in: storage, after: "writing Int?.none through set(_:forKey:)", recorder)

        let wrapper = Stored<Storage, String?>(key, in: storage)
        wrapper.wrappedValue = "seven"
        recorder.expect(
            wrapper.wrappedValue == "seven",
            "A Stored<\(Storage.self), String?> property set to \"seven\" read back \(String(conformanceDescribing: wrapper.wrappedValue)).")
        wrapper.wrappedValue = nil
        expectAbsent(key, in: storage, after: "setting an optional Stored property to nil", recorder)
    }

    func checkRoundTripOfCollections(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.collections")
        trip.expect([Int](), named: "an empty [Int]")
        trip.expect([1, -2, 3, .max, .min] as [Int], named: "an [Int]")
        trip.expect(["a", "", "ünïcödé", "with\nnewline"], named: "a [String]")
        trip.expect([true, false, true], named: "a [Bool]")
        trip.expect(
            [0.5, -0.0, 1e300], named: "a [Double]",
            matches: { read, written in
                read.count == written.count && zip(read, written).allSatisfy { isIdentical($0, $1) }
            })
        trip.expect(Set<Int>(), named: "an empty Set<Int>")
        trip.expect(Set([3, 1, 2]), named: "a Set<Int>")
        trip.expect(Set(["x", "y", "z"]), named: "a Set<String>")
        trip.expect([String: Int](), named: "an empty [String: Int]")
        trip.expect(["one": 1, "two": 2, "": 0, "with.dot": 3, "with/slash": 4], named: "a [String: Int]")
        trip.expect([[1], [], [2, 3]] as [[Int]], named: "an [[Int]]")
        trip.expect(["outer": ["inner": 1.5, "zero": 0]], named: "a [String: [String: Double]]")
        trip.expect(["flags": [true, false], "none": []] as [String: [Bool]], named: "a [String: [Bool]]")
        trip.expect([["a": [1, 2]], [:]] as [[String: [Int]]], named: "an [[String: [Int]]]")
        trip.expect([Data([0, 255]), Data()], named: "a [Data]")
        trip.expect([UUID(), UUID()], named: "a [UUID]")
        trip.expect(
            [Date(timeIntervalSince1970: 1_700_000_000.5), Date(timeIntervalSince1970: 0)], named: "a [Date]",
            matches: { read, written in read.count == written.count && zip(read, written).allSatisfy { isWithinAMillisecond($0, $1) } }
        )
        trip.expect(
            [.string("raw"), .signedInteger(-1), .unsignedInteger(.max), .bool(true), .null, .array([]), .dictionary(["k": .double(0.25)])]
                as [StoredValue],
            named: "an array of raw stored values of every kind"
        )
    }

    func checkRoundTripOfRawRepresentables(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.rawRepresentables")
        for theme in SampleTheme.allCases {
            trip.expect(theme, named: "the String-backed case .\(theme)")
        }
        for priority in SamplePriority.allCases {
            trip.expect(priority, named: "the Int-backed case .\(priority)")
        }
        trip.expect([SampleTheme.dark, .light], named: "an array of String-backed cases")
    }

    func checkRoundTripOfCodables(_ recorder: IssueRecorder) throws {
        var trip = RoundTripper(storage: try freshStorage(), reopen: options.reopen, recorder: recorder, keyPrefix: "roundTrip.codables")
        trip.expect(SampleProfile.complete, named: "a Codable struct with every optional field set")
        trip.expect(SampleProfile.sparse, named: "a Codable struct with every optional field nil")
        trip.expect([SampleProfile.sparse, .complete], named: "an array of Codable structs")
    }

    /// Records unless `key` is absent from the store and from `value(forKey:as:)`.
    func expectAbsent(_ key: String, in storage: Storage, after action: String, _ recorder: IssueRecorder) {
        if let stored = recorder.attempt("After \(action), storedValue(forKey: \"\(key)\")", { try storage.storedValue(forKey: key, .granted) }) {
            recorder.expect(
                stored == nil,
                "After \(action), storedValue(forKey: \"\(key)\") returned \(String(conformanceDescribing: stored)); expected nil, an absent key.")
        }
        if let read = recorder.attempt(
            "After \(action), value(forKey: \"\(key)\", as: StoredValue.self)",
            {
                try storage.value(forKey: key, as: StoredValue.self)
            })
        {
            recorder.expect(
                read == nil,
                "After \(action), value(forKey: \"\(key)\", as: StoredValue.self) returned \(String(conformanceDescribing: read)); expected nil.")
        }
    }
}
