#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import Testing

/// How a variable's text reads as each type, good and bad.
struct EnvironmentValueParsingTests {
    /// Reads `text`, held by the variable `VALUE`, as `type`.
    func read<Value: Storable>(_ text: String, as type: Value.Type, separator: Character = ",") throws -> Value? {
        let store = EnvironmentStore(variables: ["VALUE": text], options: .init(arraySeparator: separator))
        return try store.value(forKey: "value", as: type)
    }

    private func failure<Value: Storable>(_ text: String, as type: Value.Type) -> StorageError? {
        do {
            _ = try read(text, as: type)
            return nil
        } catch {
            return error as? StorageError
        }
    }

    @Test(arguments: [
        ("true", true), ("TRUE", true), ("yes", true), ("Yes", true), ("on", true), ("ON", true), ("1", true), ("y", true), ("Y", true),
        ("false", false), ("False", false), ("no", false), ("NO", false), ("off", false), ("0", false), ("n", false), (" true\t", true), ("\nno ", false),
    ])
    func booleans(text: String, expected: Bool) throws {
        #expect(try read(text, as: Bool.self) == expected)
    }

    @Test(arguments: ["", "truthy", "2", "t", "nope", "yes please", "1.0"])
    func notBooleans(text: String) {
        let error = failure(text, as: Bool.self)
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("VALUE") == true)
        #expect(error?.message.contains("Bool") == true)
    }

    @Test(arguments: [
        ("0", 0), ("42", 42), ("+42", 42), ("-42", -42), (" 7 ", 7), ("0x1F", 31), ("0X1f", 31), ("-0x10", -16),
        ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), ("0x7fffffffffffffff", Int.max),
    ])
    func integers(text: String, expected: Int) throws {
        #expect(try read(text, as: Int.self) == expected)
    }

    @Test func integersOfEveryWidthAndTheirRanges() throws {
        #expect(try read("255", as: UInt8.self) == 255)
        #expect(try read("-128", as: Int8.self) == -128)
        #expect(try read("18446744073709551615", as: UInt64.self) == .max)
        #expect(try read("0xffffffffffffffff", as: UInt64.self) == .max)
        #expect(failure("256", as: UInt8.self)?.code == .valueOutOfRange)
        #expect(failure("-1", as: UInt.self)?.code == .valueOutOfRange)
        #expect(failure("9223372036854775808", as: Int.self)?.code == .valueOutOfRange)
        let beyond = failure("18446744073709551616", as: UInt64.self)
        #expect(beyond?.code == .valueOutOfRange)
        #expect(beyond?.message.contains("64-bit") == true)
        #expect(failure("-9223372036854775809", as: Int64.self)?.code == .valueOutOfRange)
    }

    @Test(arguments: ["", "abc", "12abc", "1.5", "0x", "0xG1", "--1", "+-1", "1_000", "١٢", "1 2", "0b101"])
    func notIntegers(text: String) {
        let error = failure(text, as: Int.self)
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("Int (a decimal or 0x hexadecimal integer)") == true)
        #expect(error?.message.contains("VALUE") == true)
    }

    @Test(arguments: [("1.5", 1.5), ("-2e3", -2000), ("42", 42), (" 0.25 ", 0.25), ("1e-3", 0.001)])
    func doubles(text: String, expected: Double) throws {
        #expect(try read(text, as: Double.self) == expected)
    }

    @Test func doublesAndFloats() throws {
        #expect(try read("inf", as: Double.self) == .infinity)
        #expect(try read("nan", as: Double.self)?.isNaN == true)
        #expect(try read("0.5", as: Float.self) == 0.5)
        #expect(failure("one", as: Double.self)?.code == .typeMismatch)
        #expect(failure("", as: Double.self)?.code == .typeMismatch)
        #expect(failure("1e39", as: Float.self)?.code == .valueOutOfRange)
    }

    @Test(arguments: ["", " padded ", "0x1F", "true", "line\nbreak", "quote \" and \\", "ünïcödé 🎉"])
    func stringsAreExactlyAsSet(text: String) throws {
        #expect(try read(text, as: String.self) == text)
    }

    @Test func arraysFromSeparatedLists() throws {
        #expect(try read("a,b,c", as: [String].self) == ["a", "b", "c"])
        #expect(try read(" a , b ", as: [String].self) == ["a", "b"])
        #expect(try read("a,,b", as: [String].self) == ["a", "", "b"])
        #expect(try read("a\\,b,c", as: [String].self) == ["a,b", "c"])
        #expect(try read("a\\\\,b", as: [String].self) == ["a\\", "b"])
        #expect(try read("a\\b", as: [String].self) == ["a\\b"])
        #expect(try read("", as: [String].self) == [])
        #expect(try read("1, 2, 0x3", as: [Int].self) == [1, 2, 3])
        #expect(try read("a;b", as: [String].self, separator: ";") == ["a", "b"])
        #expect(try read("on,off", as: [Bool].self) == [true, false])
        #expect(try read("b,a,b", as: Set<String>.self) == ["a", "b"])
    }

    @Test func arraysFromJSON() throws {
        #expect(try read("[1, 2, 3]", as: [Int].self) == [1, 2, 3])
        #expect(try read(#"["a,b", "c"]"#, as: [String].self) == ["a,b", "c"])
        #expect(try read(#"["0x10"]"#, as: [Int].self) == [16])
        #expect(try read("[[1], [2, 3]]", as: [[Int]].self) == [[1], [2, 3]])
    }

    @Test func badArrayElementsAreNamed() {
        let empty = failure("1,,2", as: [Int].self)
        #expect(empty?.code == .typeMismatch)
        #expect(empty?.message.contains("element 1") == true)
        #expect(failure("1,x", as: [Int].self)?.message.contains("element 1") == true)
        #expect(failure("1,300", as: [UInt8].self)?.code == .valueOutOfRange)
        #expect(failure("[1, 2", as: [Int].self)?.code == .typeMismatch)
    }

    @Test func optionals() throws {
        #expect(try read("", as: Int?.self) == .some(nil))
        #expect(try read("  ", as: Int?.self) == .some(nil))
        #expect(try read("5", as: Int?.self) == .some(5))
        #expect(try read("", as: String?.self) == .some(""))
        #expect(failure("five", as: Int?.self)?.code == .typeMismatch)
    }

    @Test func dictionariesAndCodableValuesFromJSON() throws {
        struct Limits: Codable, Storable, Equatable {
            var requests: Int
            var burst: Int?
        }
        #expect(try read(#"{"a": 1, "b": 2}"#, as: [String: Int].self) == ["a": 1, "b": 2])
        #expect(try read(#"{"requests": 100, "burst": 5}"#, as: Limits.self) == Limits(requests: 100, burst: 5))
        let notJSON = failure("requests=100", as: [String: Int].self)
        #expect(notJSON?.code == .typeMismatch)
        #expect(notJSON?.message.contains("JSON") == true)
        #expect(failure(#"{"requests": "many"}"#, as: Limits.self) != nil)
    }

    @Test func enumsReadTheirRawValues() throws {
        enum Mode: String, Storable { case fast, safe }
        enum Level: Int, Storable { case low = 1, high = 2 }
        #expect(try read("safe", as: Mode.self) == .safe)
        #expect(try read("0x2", as: Level.self) == .high)
        #expect(failure("medium", as: Mode.self)?.code == .invalidValue)
        #expect(failure("3", as: Level.self)?.code == .invalidValue)
    }

    @Test func dataURLsUUIDsAndDates() throws {
        #expect(try read("aGVsbG8=", as: Data.self) == Data("hello".utf8))
        #expect(try read("https://example.com/a?b=c", as: URL.self) == URL(string: "https://example.com/a?b=c"))
        let uuid = UUID()
        #expect(try read(" \(uuid.uuidString) ", as: UUID.self) == uuid)
        #expect(try read("2026-11-22T10:30:00Z", as: Date.self) == Date(timeIntervalSince1970: 1_795_343_400))
        #expect(try read("2026-11-22T10:30:00.250Z", as: Date.self) == Date(timeIntervalSince1970: 1_795_343_400.25))
        #expect(failure("not base64!", as: Data.self)?.code == .invalidValue)
        #expect(failure("not-a-uuid", as: UUID.self)?.code == .invalidValue)
        #expect(failure("yesterday", as: Date.self)?.code == .invalidValue)
    }

    @Test func theErrorNamesTheVariableTheTypeAndTheValue() {
        let store = EnvironmentStore(variables: ["MYAPP_SERVER_PORT": "eighty"], options: .init(keyMapping: .automatic(prefix: "MYAPP")))
        do {
            _ = try store.value(forKey: "server.port", as: Int.self)
            Issue.record("reading a word as Int must fail")
        } catch let error as StorageError {
            #expect(error.key == "server.port")
            #expect(error.message.contains("MYAPP_SERVER_PORT"))
            #expect(error.message.contains("Int"))
            #expect(error.message.contains("\"eighty\""))
            #expect(store.lastError?.message == error.message)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

/// Found by the `environment-values` fuzz target (inputs under `Tools/Fuzz/Regressions`).
extension EnvironmentValueParsingTests {
    /// Whitespace was trimmed by `Character`, and CR LF is one character, equal
    /// to neither "\r" nor "\n": a value ending in CR LF did not read, though
    /// one ending in LF did.
    @Test func textEndingInCRLFReadsAsTextEndingInLFDoes() throws {
        #expect(try read("42\r\n", as: Int.self) == 42)
        #expect(try read("\r\n0x1F \r\n", as: Int.self) == 31)
        #expect(try read("yes\r\n", as: Bool.self) == true)
        #expect(try read(" 1.5\r\n", as: Double.self) == 1.5)
        #expect(try read("AAEC\r\n", as: Data.self) == Data([0, 1, 2]))
        #expect(try read("1,2\r\n", as: [Int].self) == [1, 2])
        #expect(try read("a , b\r\n", as: [String].self) == ["a", "b"])
        #expect(try read("\r\n", as: Int?.self) == .some(nil))
        #expect(try read("x\r\n", as: String.self) == "x\r\n")
    }
}
