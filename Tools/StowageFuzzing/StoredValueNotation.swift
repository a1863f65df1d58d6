#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import Stowage

/// Reads the fuzzer's bytes as a `StoredValue` tree, in a small notation
/// where every byte string means some tree.
///
/// A mutation never produces a syntax error to be thrown away, and the
/// notation is plain enough to write seeds and regression inputs by hand:
///
/// - `n` is null, `t` and `f` the booleans;
/// - `i-42` is a signed integer and `u7` an unsigned one; digits beyond 64
///   bits wrap, which reaches the extremes in a few bytes (`i9223372036854775808` is `Int64.min`);
/// - `d1.5`, `d-inf`, `dnan` or `d0x1p-1074` is a double read by `Double(_:)` (0 when it
///   reads nothing), and `D7ff8000000000001` one given by its bits in hexadecimal;
/// - `@1e9` is a date that many seconds after 1 January 2001 (`@nan` and `@-inf` too);
/// - `"text"` is a string, in which `\` takes the next byte as it is; bytes
///   that are not UTF-8 are repaired as `String(decoding:as:)` does;
/// - `b00ff` is data, in hexadecimal;
/// - `[…]` is an array and `{…}` a dictionary of keys and values, where a key
///   is a string or a bare word (`{a i1 "b c" n}`); a later duplicate key wins;
/// - spaces, commas, colons and line feeds only separate; any other byte is
///   null; a container left open ends with the input, and a value missing
///   after a key is null.
///
/// Containers nest at most `maximumDepth` deep; deeper ones read as null.
/// Bytes after the first value are ignored.
package struct StoredValueNotation {
    package static let maximumDepth = 24

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The tree the bytes describe.
    package static func value(of bytes: [UInt8]) -> StoredValue {
        var reader = StoredValueNotation(bytes)
        return reader.readValue(depth: 0)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func readValue(depth: Int) -> StoredValue {
        skipSeparators()
        guard let tag = current else { return .null }
        index += 1
        switch tag {
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "i"):
            let (magnitude, isNegative) = readInteger()
            return .signedInteger(Int64(bitPattern: isNegative ? 0 &- magnitude : magnitude))
        case UInt8(ascii: "u"): return .unsignedInteger(readInteger().magnitude)
        case UInt8(ascii: "d"): return .double(readDecimalDouble())
        case UInt8(ascii: "D"): return .double(Double(bitPattern: readHexadecimalBits()))
        case UInt8(ascii: "@"): return .date(Date(timeIntervalSinceReferenceDate: readDecimalDouble()))
        case UInt8(ascii: "\""): return .string(readString())
        case UInt8(ascii: "b"): return .data(readData())
        case UInt8(ascii: "[") where depth < Self.maximumDepth: return .array(readElements(depth: depth + 1))
        case UInt8(ascii: "{") where depth < Self.maximumDepth: return .dictionary(readMembers(depth: depth + 1))
        default: return .null
        }
    }

    private mutating func readElements(depth: Int) -> [StoredValue] {
        var elements: [StoredValue] = []
        while true {
            skipSeparators()
            guard let byte = current else { return elements }
            if byte == UInt8(ascii: "]") {
                index += 1
                return elements
            }
            elements.append(readValue(depth: depth))
        }
    }

    private mutating func readMembers(depth: Int) -> [String: StoredValue] {
        var members: [String: StoredValue] = [:]
        while true {
            skipSeparators()
            guard let byte = current else { return members }
            let key: String
            switch byte {
            case UInt8(ascii: "}"):
                index += 1
                return members
            case UInt8(ascii: "\""):
                index += 1
                key = readString()
            default:
                key = readBareWord()
            }
            skipSeparators()
            members[key] = current == UInt8(ascii: "}") ? .null : readValue(depth: depth)
        }
    }

    /// A run of letters, digits, `_`, `.` and `-`, or else the one byte there.
    private mutating func readBareWord() -> String {
        let start = index
        while let byte = current, byte.isWordByte { index += 1 }
        if index == start { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readInteger() -> (magnitude: UInt64, isNegative: Bool) {
        let isNegative = current == UInt8(ascii: "-")
        if isNegative { index += 1 }
        var magnitude: UInt64 = 0
        while let byte = current, byte &- UInt8(ascii: "0") < 10 {
            magnitude = magnitude &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            index += 1
        }
        return (magnitude, isNegative)
    }

    private mutating func readDecimalDouble() -> Double {
        let start = index
        while let byte = current, byte.isWordByte || byte == UInt8(ascii: "+") { index += 1 }
        return Double(String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
    }

    private mutating func readHexadecimalBits() -> UInt64 {
        var bits: UInt64 = 0
        var count = 0
        while count < 16, let digit = current.flatMap(\.hexadecimalDigitValue) {
            bits = bits << 4 | UInt64(digit)
            index += 1
            count += 1
        }
        return bits
    }

    private mutating func readString() -> String {
        var text: [UInt8] = []
        while let byte = current {
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), let escaped = current {
                text.append(escaped)
                index += 1
            } else {
                text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func readData() -> Data {
        var data = Data()
        while index + 1 < bytes.count, let high = bytes[index].hexadecimalDigitValue, let low = bytes[index + 1].hexadecimalDigitValue {
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private mutating func skipSeparators() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\n") {
            index += 1
        }
    }
}

extension UInt8 {
    fileprivate var isWordByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    fileprivate var hexadecimalDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
