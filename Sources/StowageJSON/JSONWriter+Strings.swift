extension JSONWriter {
    /// Writes `string` in double quotes, escaping what RFC 8259 requires.
    mutating func writeString(_ string: String) {
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeString(utf8: $0) }
        guard written == nil else { return }
        var contiguous = string
        contiguous.withUTF8 { writeString(utf8: $0) }
    }

    /// Writes the string whose UTF-8 is `utf8`, copying runs of bytes that need no escape in one go.
    mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            writeEscape(for: byte)
            runStart = index + 1
        }
        append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
        append(UInt8(ascii: "\""))
    }

    private mutating func writeEscape(for byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): appendASCII(#"\""#)
        case UInt8(ascii: "\\"): appendASCII(#"\\"#)
        case UInt8(ascii: "\n"): appendASCII(#"\n"#)
        case UInt8(ascii: "\r"): appendASCII(#"\r"#)
        case UInt8(ascii: "\t"): appendASCII(#"\t"#)
        case 0x08: appendASCII(#"\b"#)
        case 0x0C: appendASCII(#"\f"#)
        default:
            let hexadecimalDigits: StaticString = "0123456789abcdef"
            appendASCII(#"\u00"#)
            append(hexadecimalDigits.utf8Start[Int(byte >> 4)])
            append(hexadecimalDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
