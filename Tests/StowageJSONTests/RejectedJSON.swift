import Testing

/// A text the parser must reject, and the start of the reason it must give,
/// up to and including the location.
struct RejectedJSON: Sendable, CustomTestStringConvertible {
    var label: String
    var bytes: [UInt8]
    /// The reason's words, such as "found a leading zero in a number at line 1, column 1".
    var reason: String

    init(_ label: String, _ text: String, _ reason: String) {
        self.init(label, bytes: Array(text.utf8), reason)
    }

    init(_ label: String, bytes: [UInt8], _ reason: String) {
        self.label = label
        self.bytes = bytes
        self.reason = reason
    }

    var testDescription: String { label }

    private static let expectedValue = "expected a value (an object, array, string, number, true, false or null)"
    private static let invalidUTF8 = "found bytes in a string that are not valid UTF-8"
    private static let controlCharacter =
        #"found a control character in a string; it must be written as an escape such as \n or \u0000"#
    private static let loneHighSurrogate =
        #"found a \u escape of a high surrogate that is not followed by a low surrogate escape"#
    private static let tooLarge = "found a number too large to be represented as a 64-bit floating-point number"

    static let numbers: [RejectedJSON] = [
        RejectedJSON("leading zero", "01", "found a leading zero in a number at line 1, column 1"),
        RejectedJSON("negative leading zero", "-012", "found a leading zero in a number at line 1, column 2"),
        RejectedJSON("lone minus", "-", "expected a digit after '-' but found the end of the input at line 1, column 2"),
        RejectedJSON("minus then letter", "[-a]", "expected a digit after '-' at line 1, column 3"),
        RejectedJSON("plus sign", "+1", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("leading decimal point", ".5", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("trailing decimal point", "[1.]", "expected a digit after the decimal point at line 1, column 4"),
        RejectedJSON("decimal point before exponent", "1.e3", "expected a digit after the decimal point at line 1, column 3"),
        RejectedJSON("empty exponent", "1e", "expected a digit in the exponent of a number but found the end of the input at line 1, column 3"),
        RejectedJSON("exponent with sign only", "1e+", "expected a digit in the exponent of a number but found the end of the input at line 1, column 4"),
        RejectedJSON("exponent overflow", "1E400", "\(tooLarge) at line 1, column 1"),
        RejectedJSON("negative exponent overflow", "[0, -1e400]", "\(tooLarge) at line 1, column 5"),
        RejectedJSON("integer beyond every double", String(repeating: "9", count: 400), "\(tooLarge) at line 1, column 1"),
        RejectedJSON("NaN", "NaN", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("Infinity", "Infinity", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("negative Infinity", "-Infinity", "expected a digit after '-' at line 1, column 2"),
        RejectedJSON("hexadecimal", "0x10", "expected the end of the input after the top-level value at line 1, column 2"),
        RejectedJSON("digit separator", "1_000", "expected the end of the input after the top-level value at line 1, column 2"),
        RejectedJSON("two numbers", "[1 2]", "expected ',' or ']' after an array element at line 1, column 4"),
    ]

    static let strings: [RejectedJSON] = [
        RejectedJSON("single quotes", "['a']", "\(expectedValue) at line 1, column 2"),
        RejectedJSON(
            "unterminated string",
            #"["abc"#,
            #"expected '"' to close the string that starts at line 1, column 2 but found the end of the input at line 1, column 6"#
        ),
        RejectedJSON(
            "unknown escape", #""\x41""#, #"found an invalid escape sequence in a string; expected one of \" \\ \/ \b \f \n \r \t or \u at line 1, column 2"#),
        RejectedJSON(
            "escaped single quote", #""\'""#,
            #"found an invalid escape sequence in a string; expected one of \" \\ \/ \b \f \n \r \t or \u at line 1, column 2"#),
        RejectedJSON("short unicode escape", #""\u12""#, #"expected four hexadecimal digits after \u in a string at line 1, column 6"#),
        RejectedJSON("non-hex unicode escape", #""\u12G4""#, #"expected four hexadecimal digits after \u in a string at line 1, column 6"#),
        RejectedJSON("lone high surrogate", #""\uD800""#, "\(loneHighSurrogate) at line 1, column 2"),
        RejectedJSON("high surrogate then letter", #""\uD83Dx""#, "\(loneHighSurrogate) at line 1, column 2"),
        RejectedJSON("high surrogate then non-surrogate", #""\uD83D\u0041""#, "\(loneHighSurrogate) at line 1, column 2"),
        RejectedJSON("two high surrogates", #""\uD83D\uD83D""#, "\(loneHighSurrogate) at line 1, column 2"),
        RejectedJSON("lone low surrogate", #""\uDE00""#, #"found a \u escape of a low surrogate without a high surrogate before it at line 1, column 2"#),
        RejectedJSON(
            "reversed surrogate pair", #""\uDE00\uD83D""#, #"found a \u escape of a low surrogate without a high surrogate before it at line 1, column 2"#),
        RejectedJSON("raw line feed", "\"a\nb\"", "\(controlCharacter) at line 1, column 3"),
        RejectedJSON("raw tab", "\"a\tb\"", "\(controlCharacter) at line 1, column 3"),
        RejectedJSON("raw NUL", bytes: [0x22, 0x00, 0x22], "\(controlCharacter) at line 1, column 2"),
        RejectedJSON("raw unit separator after an escape", bytes: Array(#""\n"#.utf8) + [0x1F, 0x22], "\(controlCharacter) at line 1, column 4"),
        RejectedJSON("stray continuation byte", bytes: [0x22, 0x80, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("overlong two-byte slash", bytes: [0x22, 0xC0, 0xAF, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("overlong C1 lead", bytes: [0x22, 0xC1, 0xBF, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("overlong three-byte", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("overlong four-byte", bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("encoded high surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("encoded low surrogate", bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("scalar above U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("F5 lead byte", bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("FF byte", bytes: [0x22, 0x61, 0xFF, 0x22], "\(invalidUTF8) at line 1, column 3"),
        RejectedJSON("truncated sequence before the quote", bytes: [0x22, 0xE2, 0x82, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("truncated sequence at the end of the input", bytes: [0x22, 0xF0, 0x9F, 0x98], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("lead byte followed by ASCII", bytes: [0x22, 0xC3, 0x41, 0x22], "\(invalidUTF8) at line 1, column 2"),
        RejectedJSON("invalid UTF-8 after an escape", bytes: Array(#""\t"#.utf8) + [0xC0, 0x80, 0x22], "\(invalidUTF8) at line 1, column 4"),
        RejectedJSON("UTF-8 outside a string", "[é]", "\(expectedValue) at line 1, column 2"),
    ]

    static let structures: [RejectedJSON] = [
        RejectedJSON("empty input", "", "\(expectedValue) but found the end of the input at line 1, column 1"),
        RejectedJSON("only whitespace", " \n ", "\(expectedValue) but found the end of the input at line 2, column 2"),
        RejectedJSON("unclosed array", "[", "\(expectedValue) but found the end of the input at line 1, column 2"),
        RejectedJSON("unclosed array after element", "[1", "expected ',' or ']' after an array element but found the end of the input at line 1, column 3"),
        RejectedJSON("unclosed object", #"{"a":1"#, "expected ',' or '}' after an object member but found the end of the input at line 1, column 7"),
        RejectedJSON("trailing comma in array", "[1,]", "\(expectedValue) at line 1, column 4"),
        RejectedJSON("trailing comma in object", #"{"a":1,}"#, "expected a string key in double quotes after ',' at line 1, column 8"),
        RejectedJSON("double comma", "[1,,2]", "\(expectedValue) at line 1, column 4"),
        RejectedJSON("leading comma", "[,1]", "\(expectedValue) at line 1, column 2"),
        RejectedJSON("missing colon", #"{"a" 1}"#, "expected ':' after an object key at line 1, column 6"),
        RejectedJSON("unquoted key", "{a:1}", "expected a string key in double quotes after '{' at line 1, column 2"),
        RejectedJSON("number key", "{1:1}", "expected a string key in double quotes after '{' at line 1, column 2"),
        RejectedJSON("missing value", #"{"a":}"#, "\(expectedValue) at line 1, column 6"),
        RejectedJSON("lone comma in object", "{,}", "expected a string key in double quotes after '{' at line 1, column 2"),
        RejectedJSON("colon in array", #"["a":1]"#, "expected ',' or ']' after an array element at line 1, column 5"),
        RejectedJSON(
            "missing comma between members",
            "{\n  \"a\": 1,\n  \"b\": 2 \"c\": 3\n}",
            "expected ',' or '}' after an object member at line 3, column 10"
        ),
        RejectedJSON("mismatched bracket", "[1}", "expected ',' or ']' after an array element at line 1, column 3"),
        RejectedJSON("mismatched brace", #"{"a":1]"#, "expected ',' or '}' after an object member at line 1, column 7"),
        RejectedJSON("two top-level values", "[][]", "expected the end of the input after the top-level value at line 1, column 3"),
        RejectedJSON("text after the value", "{} x", "expected the end of the input after the top-level value at line 1, column 4"),
        RejectedJSON("line comment", "// note\n{}", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("block comment", "{} /* note */", "expected the end of the input after the top-level value at line 1, column 4"),
        RejectedJSON("truncated literal", "tru", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("capitalized literal", "True", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("misspelled literal", "[nul]", "\(expectedValue) at line 1, column 2"),
        RejectedJSON("literal with extra letter", "nulll", "expected the end of the input after the top-level value at line 1, column 5"),
        RejectedJSON("form feed is not whitespace", "\u{C}[]", "\(expectedValue) at line 1, column 1"),
        RejectedJSON("vertical tab is not whitespace", "[\u{B}]", "\(expectedValue) at line 1, column 2"),
        RejectedJSON("no-break space is not whitespace", "[\u{A0}1]", "\(expectedValue) at line 1, column 2"),
        RejectedJSON(
            "byte order mark without a value",
            bytes: [0xEF, 0xBB, 0xBF],
            "\(expectedValue) but found the end of the input at line 1, column 1"
        ),
        RejectedJSON("two byte order marks", bytes: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "\(expectedValue) at line 1, column 1"),
        RejectedJSON("UTF-16 byte order mark", bytes: [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00], "\(expectedValue) at line 1, column 1"),
        RejectedJSON("column counts scalars, not bytes", #"["é😀" x]"#, "expected ',' or ']' after an array element at line 1, column 7"),
        RejectedJSON("carriage return does not start a line", "[1,\r\n\r2 3]", "expected ',' or ']' after an array element at line 2, column 4"),
    ]

    static let all = numbers + strings + structures
}
