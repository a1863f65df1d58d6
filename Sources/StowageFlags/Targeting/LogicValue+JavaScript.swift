/// Conversions and comparisons as flagd's evaluators make them: the same
/// rule must give the same answer here as in every OpenFeature provider.
/// The reference is flagd's own evaluator in PyPI's openfeature-flagd-core
/// (panzi-json-logic, a port of json-logic-js); where that port shows
/// Python rather than JavaScript (`"True"` for true, floored `%`), these
/// follow JavaScript, and `Scripts/check-json-logic-compat.sh` lists each case.
extension LogicValue {
    /// json-logic-js's truthiness: JavaScript's, except that an empty array is false.
    package var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let bool): bool
        case .number(let number): number != 0 && !number.isNaN
        case .string(let string): !string.isEmpty
        case .array(let elements): !elements.isEmpty
        case .object: true
        }
    }

    /// JavaScript's ToString (and `Array.prototype.join`'s, which writes null as nothing).
    package var javaScriptString: String {
        switch self {
        case .null: "null"
        case .bool(let bool): bool ? "true" : "false"
        case .number(let number): Self.javaScriptString(of: number)
        case .string(let string): string
        case .array(let elements):
            elements.map { element in
                if case .null = element { return "" }
                return element.javaScriptString
            }.joined(separator: ",")
        case .object: "[object Object]"
        }
    }

    /// The number a value stands for: null is 0, true 1, an empty list 0
    /// and a list of one its element's; a string is read as a decimal number
    /// (surrounding white space allowed; empty, or anything else, is NaN).
    package var numericValue: Double {
        switch self {
        case .null: 0
        case .bool(let bool): bool ? 1 : 0
        case .number(let number): number
        case .string(let string): Self.number(fromNumericString: string)
        case .array(let elements): elements.isEmpty ? 0 : elements.count == 1 ? elements[0].numericValue : .nan
        case .object: .nan
        }
    }

    /// Whether the value takes part in comparisons as a number (JSON numbers and booleans).
    var isNumeric: Bool {
        switch self {
        case .number, .bool: true
        default: false
        }
    }

    /// `a == b` as flagd evaluates it: JavaScript's loose equality, but that
    /// null equals 0 (and false) when compared with a number. Arrays and
    /// objects equal only themselves, and values read from JSON never are
    /// the same one.
    package func looselyEquals(_ other: LogicValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array, .array), (.object, .object), (.array, .object), (.object, .array): return false
        default: break
        }
        if isNumeric { return numericValue == other.numericValue }
        if other.isNumeric { return numericValue == other.numericValue }
        switch (self, other) {
        case (.null, _), (_, .null): return false
        case (.string(let text), .array), (.string(let text), .object): return text.unicodeScalars.elementsEqual(other.javaScriptString.unicodeScalars)
        case (.array, .string(let text)), (.object, .string(let text)): return javaScriptString.unicodeScalars.elementsEqual(text.unicodeScalars)
        default: return false
        }
    }

    /// JavaScript's `a === b`, with the same proviso for arrays and objects.
    package func strictlyEquals(_ other: LogicValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        default: false
        }
    }

    /// `a < b` (or `a <= b`) as flagd evaluates it: as numbers when either
    /// side is a number or a boolean, as text (by Unicode scalar) when either
    /// is a string, else as numbers; NaN is less than nothing.
    func isLess(than other: LogicValue, orEqual: Bool) -> Bool {
        func compare<T: Comparable>(_ a: T, _ b: T) -> Bool { orEqual ? a <= b : a < b }
        if isNumeric || other.isNumeric { return compare(numericValue, other.numericValue) }
        switch (self, other) {
        case (.string(let a), _):
            return Self.compareScalars(a, other.javaScriptString, orEqual: orEqual)
        case (_, .string(let b)):
            return Self.compareScalars(javaScriptString, b, orEqual: orEqual)
        default:
            return compare(numericValue, other.numericValue)
        }
    }

    private static func compareScalars(_ a: String, _ b: String, orEqual: Bool) -> Bool {
        if orEqual && a.unicodeScalars.elementsEqual(b.unicodeScalars) { return true }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }

    // MARK: - Numbers and text

    /// ECMAScript's Number::toString: the shortest digits that read back as
    /// `number`, in positional form from 1e-6 up to 1e21 and in exponential
    /// form beyond ("1e+21", "1.5e-7").
    static func javaScriptString(of number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == 0 { return "0" }
        let sign = number < 0 ? "-" : ""
        // Swift's description holds the same shortest digits, in a form of its own: take them and the exponent from it.
        let description = "\(abs(number))"
        let parts = description.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0]
        let integerDigitCount = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = Array(mantissa.filter { $0 != "." })
        let leadingZeros = digits.prefix { $0 == "0" }.count
        digits.removeFirst(leadingZeros)
        while digits.last == "0" { digits.removeLast() }
        // The value is 0.d1d2…dk × 10^n.
        let n = integerDigitCount - leadingZeros + exponent
        let k = digits.count
        let text = String(digits)
        if k <= n && n <= 21 { return sign + text + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return sign + String(digits[..<n]) + "." + String(digits[n...]) }
        if -6 < n && n <= 0 { return sign + "0." + String(repeating: "0", count: -n) + text }
        let exponentText = (n - 1 >= 0 ? "+" : "-") + String(abs(n - 1))
        if k == 1 { return sign + text + "e" + exponentText }
        return sign + String(digits[0]) + "." + String(digits[1...]) + "e" + exponentText
    }

    /// A string's number as flagd reads it: a decimal number, with white
    /// space around it, or "Infinity"; an empty string, or anything else, is NaN.
    static func number(fromNumericString string: String) -> Double {
        let trimmed = Substring(string).drop(while: isJavaScriptWhiteSpace).reversed().drop(while: isJavaScriptWhiteSpace).reversed()
        var unsigned = Substring(String(trimmed))
        var sign = 1.0
        if let first = unsigned.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            unsigned = unsigned.dropFirst()
        }
        if unsigned == "Infinity" { return sign * .infinity }
        guard !unsigned.isEmpty, decimalPrefix(of: unsigned).count == unsigned.count, let value = Double(unsigned) else { return .nan }
        return sign * value
    }

    /// The longest prefix of `text` that is an unsigned decimal literal: digits, a fraction, an exponent.
    private static func decimalPrefix(of text: Substring) -> Substring {
        var index = text.startIndex
        var sawDigit = false
        func skipDigits() {
            while index < text.endIndex, text[index].isASCII, text[index].isNumber {
                index = text.index(after: index)
                sawDigit = true
            }
        }
        skipDigits()
        if index < text.endIndex, text[index] == "." {
            index = text.index(after: index)
            skipDigits()
        }
        guard sawDigit else { return text[text.startIndex..<text.startIndex] }
        var end = index
        if index < text.endIndex, text[index] == "e" || text[index] == "E" {
            var exponentIndex = text.index(after: index)
            if exponentIndex < text.endIndex, text[exponentIndex] == "+" || text[exponentIndex] == "-" {
                exponentIndex = text.index(after: exponentIndex)
            }
            let digitsStart = exponentIndex
            while exponentIndex < text.endIndex, text[exponentIndex].isASCII, text[exponentIndex].isNumber {
                exponentIndex = text.index(after: exponentIndex)
            }
            if exponentIndex > digitsStart { end = exponentIndex }
        }
        return text[text.startIndex..<end]
    }

    /// ECMAScript's WhiteSpace and LineTerminator characters.
    private static func isJavaScriptWhiteSpace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
            default: false
            }
        }
    }
}
