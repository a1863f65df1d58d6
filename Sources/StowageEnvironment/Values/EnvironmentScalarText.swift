/// The text forms of booleans and numbers in environment variables.
enum EnvironmentScalarText {
    /// `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`, `y`/`n`, in any case,
    /// with surrounding whitespace ignored.
    static func bool(_ text: String) throws(EnvironmentTextProblem) -> Bool {
        switch trimmed(text).lowercased() {
        case "true", "yes", "on", "1", "y": return true
        case "false", "no", "off", "0", "n": return false
        default: throw EnvironmentTextProblem(expected: "Bool (true/false, yes/no, on/off, 1/0 or y/n)")
        }
    }

    /// A decimal integer with an optional sign, or `0x` hexadecimal; never
    /// wraps: a number beyond 64 bits is an error.
    static func integer(_ text: String, typeName: String) throws(EnvironmentTextProblem) -> ParsedInteger {
        let expected = "\(typeName) (a decimal or 0x hexadecimal integer)"
        var digits = Substring(trimmed(text))
        var isNegative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            isNegative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        // `UInt64(_:radix:)` accepts a sign of its own; the sign was taken above.
        guard !digits.isEmpty, digits.first != "+", digits.first != "-" else { throw EnvironmentTextProblem(expected: expected) }
        guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || (radix == 16 && $0.isHexDigit)) }) else {
            throw EnvironmentTextProblem(expected: expected)
        }
        guard let magnitude = UInt64(digits, radix: radix) else {
            throw EnvironmentTextProblem(expected: expected, detail: "the number is beyond the range of 64-bit integers", isOutOfRange: true)
        }
        if !isNegative { return .unsigned(magnitude) }
        if magnitude == UInt64(Int64.max) + 1 { return .signed(.min) }
        guard let value = Int64(exactly: magnitude) else {
            throw EnvironmentTextProblem(expected: expected, detail: "the number is beyond the range of 64-bit integers", isOutOfRange: true)
        }
        return .signed(-value)
    }

    /// A floating-point number as Swift writes one (`1.5`, `-2e10`, `inf`, `nan`).
    static func double(_ text: String, typeName: String) throws(EnvironmentTextProblem) -> Double {
        guard let value = Double(trimmed(text)) else { throw EnvironmentTextProblem(expected: "\(typeName) (a decimal number)") }
        return value
    }

    /// The text without spaces, tabs, CRs and LFs around it.
    ///
    /// Trims scalars, not characters: a CR LF pair is one `Character`, equal
    /// to neither "\r" nor "\n", and a value set by a tool that ends lines
    /// with CR LF must read like one that ends them with LF.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let whitespace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !whitespace($0) }), let last = scalars.lastIndex(where: { !whitespace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}

/// An integer read from text, before the type read checks its range.
enum ParsedInteger {
    case signed(Int64)
    case unsigned(UInt64)
}
