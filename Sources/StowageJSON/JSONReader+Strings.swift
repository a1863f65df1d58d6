import Stowage

extension JSONReader {
    /// Reads a string whose opening quote is at `offset`, leaving `offset` after the closing quote.
    ///
    /// A string without escapes becomes a `String` straight from the input
    /// bytes; only one with escapes is assembled in `scratch`. UTF-8 is
    /// validated here so the error can name the place; `String(decoding:)`
    /// then never has anything to repair.
    mutating func readString() throws(StorageError) -> String {
        let start = offset + 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                offset = index + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                return try readEscapedString(from: start, firstEscape: index)
            }
            index = try validatedCharacterEnd(at: index)
        }
        throw unterminatedStringError(openingQuote: start - 1)
    }

    /// Goes on reading a string at its first backslash, copying it into `scratch`.
    private mutating func readEscapedString(from start: Int, firstEscape: Int) throws(StorageError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var index = firstEscape
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                offset = index + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index = try readEscape(at: index)
                runStart = index
            } else {
                index = try validatedCharacterEnd(at: index)
            }
        }
        throw unterminatedStringError(openingQuote: start - 1)
    }

    /// Decodes the escape whose backslash is at `index` into `scratch`, returning the index after it.
    private mutating func readEscape(at index: Int) throws(StorageError) -> Int {
        let decoded: UInt8
        switch byte(at: index + 1) {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = UInt8(ascii: "\n")
        case UInt8(ascii: "r"): decoded = UInt8(ascii: "\r")
        case UInt8(ascii: "t"): decoded = UInt8(ascii: "\t")
        case UInt8(ascii: "u"): return try readUnicodeEscape(at: index)
        default:
            throw error(
                "found an invalid escape sequence in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u",
                at: index
            )
        }
        scratch.append(decoded)
        return index + 2
    }

    /// Decodes `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, into `scratch` as UTF-8.
    private mutating func readUnicodeEscape(at index: Int) throws(StorageError) -> Int {
        let first = try hexadecimalCodeUnit(at: index)
        var scalarValue = UInt32(first)
        var end = index + 6
        switch first {
        case 0xD800...0xDBFF:
            guard byte(at: end) == UInt8(ascii: "\\"), byte(at: end + 1) == UInt8(ascii: "u") else {
                throw error("found a \\u escape of a high surrogate that is not followed by a low surrogate escape", at: index)
            }
            let second = try hexadecimalCodeUnit(at: end)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("found a \\u escape of a high surrogate that is not followed by a low surrogate escape", at: index)
            }
            scalarValue = 0x1_0000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw error("found a \\u escape of a low surrogate without a high surrogate before it", at: index)
        default:
            break
        }
        // Every value left is a valid scalar: surrogates were handled above.
        let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
        UTF8.encode(scalar) { scratch.append($0) }
        return end
    }

    /// The four hexadecimal digits of the `\u` escape whose backslash is at `index`.
    private func hexadecimalCodeUnit(at index: Int) throws(StorageError) -> UInt16 {
        var value: UInt16 = 0
        for position in index + 2..<index + 6 {
            let byte = byte(at: position)
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hexadecimal digits after \\u in a string", at: position)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Checks the character at `index` inside a string and returns the index
    /// after it: one byte for ASCII, the whole sequence for other scalars.
    ///
    /// Rejects control characters and every ill-formed UTF-8 sequence of the
    /// Unicode standard (table 3-7): stray continuation bytes, overlong forms
    /// (C0, C1, E0 80–9F, F0 80–8F), encoded surrogates (ED A0–BF), scalars
    /// above U+10FFFF (F4 90 and up, F5–FF) and sequences cut short.
    @inline(__always)
    private func validatedCharacterEnd(at index: Int) throws(StorageError) -> Int {
        let lead = bytes[index]
        if lead >= 0x20 && lead < 0x80 { return index + 1 }
        if lead < 0x20 {
            throw error("found a control character in a string; it must be written as an escape such as \\n or \\u0000", at: index)
        }
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw invalidUTF8Error(at: index)
        }
        guard secondRange.contains(byte(at: index + 1)) else { throw invalidUTF8Error(at: index) }
        for position in index + 2..<index + length where byte(at: position) & 0xC0 != 0x80 {
            throw invalidUTF8Error(at: index)
        }
        return index + length
    }

    private func invalidUTF8Error(at index: Int) -> StorageError {
        error("found bytes in a string that are not valid UTF-8", at: index)
    }

    private func unterminatedStringError(openingQuote: Int) -> StorageError {
        let location = JSONSourceLocation(offset: openingQuote, in: bytes)
        return error("expected '\"' to close the string that starts at \(location)", at: bytes.count)
    }
}
