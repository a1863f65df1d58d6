#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON
import StowageTestSupport
import Testing

struct JSONParserTests {
    @Test(arguments: AcceptedJSON.all)
    func acceptsValidJSONAsTheExactValue(_ accepted: AcceptedJSON) throws {
        let value = try JSONParser().parse(accepted.bytes)
        #expect(value.isIdentical(to: accepted.expected), "parsed \(value)")
    }

    @Test(arguments: RejectedJSON.all)
    func rejectsInvalidJSONNamingWhatWasExpectedAndWhere(_ rejected: RejectedJSON) {
        let error = #expect(throws: StorageError.self) { try JSONParser().parse(rejected.bytes) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.key == nil)
        #expect(error?.reason == rejected.reason + ".")
    }

    @Test func readsBytesDataAndRawBuffersAlike() throws {
        let bytes = Array(#"{"a": [1, 2.5, "x"]}"#.utf8)
        let fromArray = try JSONParser().parse(bytes)
        let fromData = try JSONParser().parse(Data(bytes))
        let fromBuffer = try bytes.withUnsafeBytes { buffer in try JSONParser().parse(buffer) }
        #expect(fromArray.isIdentical(to: fromData))
        #expect(fromArray.isIdentical(to: fromBuffer))
    }

    @Test func readsAnEmptyRawBufferAsAnError() {
        let error = #expect(throws: StorageError.self) { try JSONParser().parse(UnsafeRawBufferPointer(start: nil, count: 0)) }
        #expect(error?.code == .invalidJSON)
    }

    @Test func errorsNeverQuoteTheText() {
        let secrets: [String] = [
            "{\"password\": \"hunter2\u{1}\"}",
            #"{"password": "hunter2\q"}"#,
            #"{"password": hunter2}"#,
            #"{"password": "hunter2"#,
            #"{"password": 1234567e999}"#,
        ]
        for text in secrets {
            let error = #expect(throws: StorageError.self) { try JSONParser().parse(Array(text.utf8)) }
            #expect(error.map { !$0.description.contains("hunter2") && !$0.description.contains("1234567") } == true)
        }
    }

    @Test func rejectsNestingDeeperThanTheDefaultLimit() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser().parse(Array(deepest.utf8)) }

        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = #expect(throws: StorageError.self) { try JSONParser().parse(Array(tooDeep.utf8)) }
        #expect(error?.reason == "found objects and arrays nested more than 512 levels deep at line 1, column 513.")
    }

    @Test func countsObjectsAndEmptyContainersTowardsAConfiguredDepth() throws {
        let parser = JSONParser(maximumDepth: 3)
        #expect(throws: Never.self) { try parser.parse(Array(#"{"a":[{}]}"#.utf8)) }
        #expect(throws: StorageError.self) { try parser.parse(Array(#"{"a":[{"b":{}}]}"#.utf8)) }
        #expect(throws: StorageError.self) { try parser.parse(Array("[[[[]]]]".utf8)) }
        #expect(throws: Never.self) { try parser.parse(Array("[[[1]],[[2]]]".utf8)) }
    }

    @Test func survivesAHundredThousandOpeningBrackets() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: StorageError.self) { try JSONParser().parse(bytes) }
        #expect(throws: StorageError.self) { try JSONParser(maximumDepth: .max).parse(bytes) }
    }

    @Test func reportsEachDuplicateKeyWhereItAppearsAgain() throws {
        let text = """
            {
              "a": 1,
              "b": {"x": true, "x": false},
              "a": 2
            }
            """
        let document = try JSONParser().parseDocument(Array(text.utf8))
        #expect(document.value.isIdentical(to: ["a": 2, "b": ["x": false]]))
        #expect(
            document.duplicateKeys == [
                JSONParser.DuplicateKey(key: "x", location: JSONSourceLocation(line: 3, column: 20)),
                JSONParser.DuplicateKey(key: "a", location: JSONSourceLocation(line: 4, column: 3)),
            ])
    }

    @Test func reportsNoDuplicatesForDistinctKeys() throws {
        let document = try JSONParser().parseDocument(Array(#"{"a": 1, "A": 2, "b": {"a": 3}}"#.utf8))
        #expect(document.duplicateKeys.isEmpty)
    }

    /// A hundred thousand under a sanitizer (see `TestScale`).
    @Test func parsesAMillionKeys() throws {
        let count = TestScale.choose(full: 1_000_000, sanitized: 100_000)
        var text = "{"
        text.reserveCapacity(count * 20)
        for index in 0..<count {
            if index > 0 { text += "," }
            text += "\"key\(index)\":\(index)"
        }
        text += "}"
        let value = try JSONParser().parse(Array(text.utf8))
        guard case .dictionary(let members) = value else {
            Issue.record("expected an object, got \(value.kindDescription)")
            return
        }
        #expect(members.count == count)
        #expect(members["key\(count - 1)"] == .signedInteger(Int64(count - 1)))
    }

    /// Ten megabytes under a sanitizer (see `TestScale`).
    @Test func parsesAHundredMegabyteString() throws {
        let length = TestScale.choose(full: 100_000_000, sanitized: 10_000_000)
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 2)
        bytes[0] = UInt8(ascii: "\"")
        bytes[bytes.count - 1] = UInt8(ascii: "\"")
        let value = try JSONParser().parse(bytes)
        guard case .string(let string) = value else {
            Issue.record("expected a string, got \(value.kindDescription)")
            return
        }
        #expect(string.utf8.count == length)
    }
}
