#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON
import Testing

struct JSONSerializerTests {
    private func text(of value: StoredValue, _ formatting: JSONFormatting = .compact) throws -> String {
        String(decoding: try JSONSerializer(formatting: formatting).serialize(value), as: UTF8.self)
    }

    @Test func prettyPrintsOneMemberPerLineWithSortedKeys() throws {
        let value: StoredValue = [
            "server": ["port": 8080, "host": "example.com", "ratio": 0.75],
            "tags": ["a", "b"],
            "empty": [:],
            "none": [],
            "enabled": true,
            "nothing": nil,
        ]
        let expected = """
            {
              "empty": {},
              "enabled": true,
              "none": [],
              "nothing": null,
              "server": {
                "host": "example.com",
                "port": 8080,
                "ratio": 0.75
              },
              "tags": [
                "a",
                "b"
              ]
            }

            """
        #expect(try text(of: value, .prettyPrinted) == expected)
    }

    @Test func writesCompactOutputWithoutWhitespace() throws {
        let value: StoredValue = ["b": [1, ["c": nil]], "a": "x", "d": [:], "e": []]
        #expect(try text(of: value) == #"{"a":"x","b":[1,{"c":null}],"d":{},"e":[]}"#)
    }

    @Test func prettyPrintsATopLevelScalarOnOneLine() throws {
        #expect(try text(of: 7, .prettyPrinted) == "7\n")
        #expect(try text(of: [], .prettyPrinted) == "[]\n")
    }

    @Test func sortsKeysByCodePointsNotByStringComparison() throws {
        // "e" + U+0301 sorts after "f" by `String`'s `<`, which compares it as
        // "é", but before it by code points. U+FF61 comes before U+10000 by
        // code points although UTF-16 order puts it after.
        let keys = ["f", "e\u{301}", "\u{10000}", "\u{FF61}", "B", "a", "aa", "", "ü"]
        let value = StoredValue.dictionary(Dictionary(uniqueKeysWithValues: keys.map { ($0, StoredValue.null) }))
        let expectedOrder = ["", "B", "a", "aa", "e\u{301}", "f", "ü", "\u{FF61}", "\u{10000}"]
        let expected = "{" + expectedOrder.map { "\"\($0)\":null" }.joined(separator: ",") + "}"
        #expect(try text(of: value).utf8.elementsEqual(expected.utf8))
    }

    @Test func writesIntegersExactly() throws {
        let value: StoredValue = [.signedInteger(.min), .signedInteger(.max), .unsignedInteger(.max), 0, -1]
        #expect(try text(of: value) == "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-1]")
    }

    @Test(
        arguments: [
            (2.0, "2.0"), (0.1, "0.1"), (-0.0, "-0.0"), (1e100, "1e+100"), (1e-300, "1e-300"),
            (1e16, "1e+16"), (1e-5, "1e-05"), (.leastNonzeroMagnitude, "5e-324"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (123_456_789.0, "123456789.0"), (0.30000000000000004, "0.30000000000000004"),
        ] as [(Double, String)])
    func writesDoublesInShortestFormThatReadsBackAsADouble(_ double: Double, _ expected: String) throws {
        let written = try text(of: .double(double))
        #expect(written == expected)
        let parsed = try JSONParser().parse(Array(written.utf8))
        #expect(parsed.isIdentical(to: .double(double)))
    }

    @Test func escapesQuotesBackslashesAndControlCharactersOnly() throws {
        let value = StoredValue.string("\"\\\n\t\r\u{8}\u{C}\u{0}\u{1F}\u{7F}/é😀\u{2028}")
        #expect(try text(of: value) == #""\"\\\n\t\r\b\f\u0000\u001f"# + "\u{7F}/é😀\u{2028}\"")
    }

    @Test func escapesKeysLikeStrings() throws {
        #expect(try text(of: ["a\"b\n": 1]) == #"{"a\"b\n":1}"#)
    }

    @Test func writesDataAsBase64AndDatesAsISO8601WithMilliseconds() throws {
        let value: StoredValue = [
            "data": .data(Data([0, 1, 2, 255])),
            "date": .date(Date(timeIntervalSince1970: 1_700_000_000.25)),
        ]
        #expect(try text(of: value) == #"{"data":"AAEC/w==","date":"2023-11-14T22:13:20.250Z"}"#)
    }

    @Test(
        arguments: [
            (StoredValue.double(.nan), "At the top level"),
            (["server": ["ratio": .double(.infinity)]], #"At "server.ratio""#),
            (["servers": [["ports": [1, .double(-.infinity)]]]], #"At "servers[0].ports[1]""#),
            ([1, ["a.b": .double(.nan)]], #"At "[1].a.b""#),
        ] as [(StoredValue, String)])
    func refusesNaNAndInfinityNamingThePath(_ value: StoredValue, _ location: String) {
        for formatting in [JSONFormatting.compact, .prettyPrinted] {
            let error = #expect(throws: StorageError.self) { try JSONSerializer(formatting: formatting).serialize(value) }
            #expect(error?.code == .encodingFailed)
            #expect(error?.reason == "\(location): found a floating-point number that is NaN or infinite, which JSON can not represent.")
        }
    }

    @Test func refusesNestingThatTheParserWouldNotReadBack() throws {
        var value: StoredValue = []
        for _ in 1..<512 { value = [value] }
        let written = try JSONSerializer(formatting: .compact).serialize(value)
        #expect(throws: Never.self) { try JSONParser().parse(written) }

        let error = #expect(throws: StorageError.self) { try JSONSerializer().serialize(["a": [value]]) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.reason.hasPrefix(#"At "a[0][0][0]"#) == true)
        #expect(error?.reason.hasSuffix(": found objects and arrays nested more than 512 levels deep.") == true)
    }

    static let roundTripValues: [StoredValue] = [
        .null, true, false, 0, -1, .signedInteger(.min), .signedInteger(.max), .unsignedInteger(.max),
        .unsignedInteger(UInt64(Int64.max) + 1), 0.1, 1e-300, 2.0, -0.0, 1e300, .double(.leastNonzeroMagnitude),
        "", "plain", "\"\\/\u{0}\u{1F}\n\r\t\u{8}\u{C}", "é😀日本\u{10FFFF}\u{FFFF}\u{2028}", "e\u{301}",
        [], [:],
        [
            "numbers": [.signedInteger(.min), .unsignedInteger(.max), 0.1, 1e-300, 2.0, -0.0, 42],
            "nested": ["deeper": ["deepest": [[], [:], [nil, true, "x"]]]],
            "strings": ["tab\tand\nnewline", "😀", "\u{7F}"],
            "": "empty key",
            "key with \"quotes\"": ["\u{1}": 1],
        ],
    ]

    @Test(arguments: roundTripValues, [JSONFormatting.compact, .prettyPrinted])
    func parsingWhatWasSerializedGivesTheSameValue(_ value: StoredValue, _ formatting: JSONFormatting) throws {
        let bytes = try JSONSerializer(formatting: formatting).serialize(value)
        let parsed = try JSONParser().parse(bytes)
        #expect(parsed.isIdentical(to: value), "read back \(parsed)")
    }

    @Test func dataAndDatesReadBackThroughTheirStrings() throws {
        let data = Data((0...255).map { UInt8($0) })
        let date = Date(timeIntervalSince1970: 1_234_567_890.125)
        let parsed = try JSONParser().parse(try JSONSerializer().serialize(["data": .data(data), "date": .date(date)]))
        #expect(try Data(storedValue: parsed.dictionaryValue["data"] ?? .null) == data)
        #expect(try Date(storedValue: parsed.dictionaryValue["date"] ?? .null) == date)
    }

    @Test func serializingTheSameValueTwiceGivesTheSameBytes() throws {
        var members: [String: StoredValue] = [:]
        for index in 0..<1_000 { members["key\(index * 7919 % 1_000)"] = .signedInteger(Int64(index)) }
        let first = try JSONSerializer().serialize(.dictionary(members))
        let second = try JSONSerializer().serialize(.dictionary(Dictionary(uniqueKeysWithValues: members.shuffled())))
        #expect(first == second)
    }

    @Test(arguments: [JSONFormatting.compact, .prettyPrinted])
    func updatingAPreviousSerializationGivesTheBytesOfAFreshOne(formatting: JSONFormatting) throws {
        let serializer = JSONSerializer(formatting: formatting)
        var generator = SplitMix64(seed: 42)
        let keyPool = (0..<400).map { "k\($0)" } + ["", "é", "e\u{301}x", "\u{10000}", "\u{FF61}", "a\"quote", "zz"]
        var object: [String: StoredValue] = [:]
        for key in keyPool.prefix(300) { object[key] = .signedInteger(Int64(key.utf8.count)) }
        var previous = try serializer.serializeObject(object)
        var incrementalSteps = 0
        for step in 0..<300 {
            // Mostly a few changes, sometimes many (past the point where a fresh serialization is cheaper).
            let changeCount = step % 25 == 0 ? 150 : Int(generator.next() % 4) + 1
            var changed = Set<String>()
            for _ in 0..<changeCount {
                let key = keyPool[Int(generator.next() % UInt64(keyPool.count))]
                changed.insert(key)
                switch generator.next() % 3 {
                case 0: object[key] = nil
                case 1: object[key] = .string("v\(step)")
                default: object[key] = ["nested": .array([.bool(true), .double(0.5)]), "step": .signedInteger(Int64(step))]
                }
            }
            if step % 7 == 0 { changed.insert("k1") }  // naming an unchanged member is allowed
            let updated = try serializer.serializeObject(object, changing: changed, since: previous)
            let fresh = try serializer.serialize(.dictionary(object))
            #expect(updated.bytes == fresh, "step \(step)")
            if changeCount < 10 { incrementalSteps += 1 }
            previous = updated
        }
        #expect(incrementalSteps > 200)
        // Emptied, then refilled.
        let emptied = try serializer.serializeObject([:], changing: Set(object.keys), since: previous)
        #expect(emptied.bytes == (try serializer.serialize(.dictionary([:]))))
    }

    @Test func removingAKeyCanonicallyEquivalentToTheMemberStillRemovesTheMember() throws {
        let serializer = JSONSerializer(formatting: .compact)
        var object: [String: StoredValue] = [:]
        for index in 0..<100 { object["k\(index)"] = .bool(true) }
        object["e\u{301}"] = 1
        let previous = try serializer.serializeObject(object)
        object["\u{E9}"] = nil  // the same key to `Dictionary`, other bytes
        #expect(object.count == 100)
        let updated = try serializer.serializeObject(object, changing: ["\u{E9}"], since: previous)
        #expect(updated.bytes == (try serializer.serialize(.dictionary(object))))
    }
}

extension StoredValue {
    /// The members of a dictionary, or none.
    fileprivate var dictionaryValue: [String: StoredValue] {
        if case .dictionary(let members) = self { members } else { [:] }
    }
}

/// A small deterministic generator, so a failing step can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
