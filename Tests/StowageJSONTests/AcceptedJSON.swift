import Stowage
import Testing

/// A JSON text the parser must accept, and the exact value it must give.
struct AcceptedJSON: Sendable, CustomTestStringConvertible {
    var label: String
    var bytes: [UInt8]
    var expected: StoredValue

    init(_ label: String, _ text: String, _ expected: StoredValue) {
        self.init(label, bytes: Array(text.utf8), expected)
    }

    init(_ label: String, bytes: [UInt8], _ expected: StoredValue) {
        self.label = label
        self.bytes = bytes
        self.expected = expected
    }

    var testDescription: String { label }

    static let numbers: [AcceptedJSON] = [
        AcceptedJSON("zero", "0", .signedInteger(0)),
        AcceptedJSON("negative zero integer is the integer 0", "-0", .signedInteger(0)),
        AcceptedJSON("negative zero double keeps its sign", "-0.0", .double(-0.0)),
        AcceptedJSON("zero with fraction is a double", "0.0", .double(0)),
        AcceptedJSON("whole number with fraction stays a double", "2.0", .double(2)),
        AcceptedJSON("negative integer", "-42", .signedInteger(-42)),
        AcceptedJSON("Int64.max", "9223372036854775807", .signedInteger(.max)),
        AcceptedJSON("Int64.min exactly", "-9223372036854775808", .signedInteger(.min)),
        AcceptedJSON("Int64.max + 1 is unsigned", "9223372036854775808", .unsignedInteger(9_223_372_036_854_775_808)),
        AcceptedJSON("UInt64.max", "18446744073709551615", .unsignedInteger(.max)),
        AcceptedJSON("UInt64.max + 1 becomes a double", "18446744073709551616", .double(0x1p64)),
        AcceptedJSON("Int64.min - 1 becomes a double", "-9223372036854775809", .double(-0x1p63)),
        AcceptedJSON("integer beyond 2^53 stays exact", "9007199254740993", .signedInteger(9_007_199_254_740_993)),
        AcceptedJSON("30-digit integer becomes a double", "123456789012345678901234567890", .double(1.2345678901234568e29)),
        AcceptedJSON("exponent makes a double", "1e2", .double(100)),
        AcceptedJSON("capital exponent", "1E2", .double(100)),
        AcceptedJSON("exponent with plus", "1e+2", .double(100)),
        AcceptedJSON("negative exponent", "-1.5E-2", .double(-0.015)),
        AcceptedJSON("exponent with leading zeros", "1e007", .double(1e7)),
        AcceptedJSON("one tenth", "0.1", .double(0.1)),
        AcceptedJSON("sum rounding artefact", "0.30000000000000004", .double(0.30000000000000004)),
        AcceptedJSON("largest double", "1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        AcceptedJSON("smallest subnormal", "4.9406564584124654e-324", .double(.leastNonzeroMagnitude)),
        AcceptedJSON("underflow rounds to zero", "1e-400", .double(0)),
        AcceptedJSON("halfway case rounds to even", "9007199254740993.0", .double(0x1p53)),
        AcceptedJSON(
            "exact halfway between 1 and its successor rounds to even",
            "1.00000000000000011102230246251565404236316680908203125",
            .double(1)
        ),
        AcceptedJSON(
            "just above halfway rounds up",
            "1.00000000000000011102230246251565404236316680908203126",
            .double(1.0000000000000002)
        ),
        AcceptedJSON("hard strtod case", "2.2250738585072011e-308", .double(Double(bitPattern: 0x000F_FFFF_FFFF_FFFF))),
        AcceptedJSON("number inside an array", "[-1,0.5,1e1]", .array([.signedInteger(-1), .double(0.5), .double(10)])),
    ]

    static let strings: [AcceptedJSON] = [
        AcceptedJSON("empty string", #""""#, .string("")),
        AcceptedJSON("plain string", #""hello""#, .string("hello")),
        AcceptedJSON("every short escape", #""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
        AcceptedJSON("unicode escape", #""\u0041""#, .string("A")),
        AcceptedJSON("lowercase hex escape", #""\u00e9""#, .string("é")),
        AcceptedJSON("uppercase hex escape", #""\u00E9""#, .string("é")),
        AcceptedJSON("escaped NUL", #""a\u0000b""#, .string("a\u{0}b")),
        AcceptedJSON("surrogate pair", #""\uD83D\uDE00""#, .string("😀")),
        AcceptedJSON("lowercase surrogate pair", #""\ud83d\ude00""#, .string("😀")),
        AcceptedJSON("highest scalar as a pair", #""\uDBFF\uDFFF""#, .string("\u{10FFFF}")),
        AcceptedJSON("noncharacter U+FFFF", #""\uFFFF""#, .string("\u{FFFF}")),
        AcceptedJSON("raw two-byte UTF-8", "\"é\"", .string("é")),
        AcceptedJSON("raw three-byte UTF-8", "\"日本\"", .string("日本")),
        AcceptedJSON("raw four-byte UTF-8", "\"😀\"", .string("😀")),
        AcceptedJSON("raw highest scalar", bytes: [0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22], .string("\u{10FFFF}")),
        AcceptedJSON("raw line separator", "\"\u{2028}\"", .string("\u{2028}")),
        AcceptedJSON("raw DEL", "\"\u{7F}\"", .string("\u{7F}")),
        AcceptedJSON("escapes between raw UTF-8", #""é\n😀\u00e9x""#, .string("é\n😀éx")),
        AcceptedJSON("combining mark kept as written", "\"e\u{301}\"", .string("e\u{301}")),
    ]

    static let structures: [AcceptedJSON] = [
        AcceptedJSON("true", "true", .bool(true)),
        AcceptedJSON("false", "false", .bool(false)),
        AcceptedJSON("null", "null", .null),
        AcceptedJSON("top-level string", #""x""#, .string("x")),
        AcceptedJSON("empty array", "[]", .array([])),
        AcceptedJSON("empty object", "{}", .dictionary([:])),
        AcceptedJSON("empty containers with spaces", "[ { } , [ ] ]", .array([.dictionary([:]), .array([])])),
        AcceptedJSON("all four whitespace characters", " \t\r\n[ 1 \t\r\n] \n", .array([.signedInteger(1)])),
        AcceptedJSON("nested arrays", "[1,[2,[3]]]", .array([.signedInteger(1), .array([.signedInteger(2), .array([.signedInteger(3)])])])),
        AcceptedJSON(
            "nested objects",
            #"{"a":{"b":[true,null]},"c":"d"}"#,
            .dictionary(["a": .dictionary(["b": .array([.bool(true), .null])]), "c": .string("d")])
        ),
        AcceptedJSON("empty key", #"{"":1}"#, .dictionary(["": .signedInteger(1)])),
        AcceptedJSON("escaped key", #"{"a\nb\u00e9":1}"#, .dictionary(["a\nbé": .signedInteger(1)])),
        AcceptedJSON("UTF-8 byte order mark is skipped", bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), .dictionary([:])),
        AcceptedJSON("last duplicate key wins", #"{"a":1,"b":2,"a":3}"#, .dictionary(["a": .signedInteger(3), "b": .signedInteger(2)])),
        AcceptedJSON(
            "canonically equivalent keys are one key, spelled as the last member spells it",
            #"{"\u00e9":1,"e\u0301":2}"#,
            .dictionary(["e\u{301}": .signedInteger(2)])
        ),
    ]

    static let all = numbers + strings + structures
}
