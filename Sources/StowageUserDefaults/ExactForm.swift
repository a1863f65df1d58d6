package import Foundation
package import Stowage

/// The exact encoding of the values `UserDefaults` can not keep as they are
/// (`nil` in an array, `-0.0`, NaN, a date's fraction of a second, a string
/// its file format can not hold): `Data` that starts with ``marker``, then a
/// compact binary form of the `StoredValue`.
///
/// A value `UserDefaults` keeps exactly is written as itself, so other code
/// reading the same defaults finds a boolean, a number or a string; only
/// these few get this form. `Data` a user stores that happens to begin with
/// the marker is encoded too, so reading it back never mistakes it for one.
package enum ExactForm {
    /// A NUL byte, "stowage", and the form's version: no text, and hardly any binary, starts so.
    static let marker: [UInt8] = [0x00] + Array("stowage".utf8) + [0x01]

    static func isEncoded(_ data: Data) -> Bool {
        data.count >= marker.count && data.prefix(marker.count).elementsEqual(marker)
    }

    package static func encode(_ value: StoredValue) -> Data {
        var bytes = marker
        append(value, to: &bytes)
        return Data(bytes)
    }

    /// The value `data` encodes, or `nil` when it is not this form or is cut short or damaged.
    package static func decode(_ data: Data) -> StoredValue? {
        guard isEncoded(data) else { return nil }
        var reader = Reader(bytes: Array(data.dropFirst(marker.count)))
        guard let value = reader.value(depth: 0), reader.isAtEnd else { return nil }
        return value
    }

    private enum Tag: UInt8 {
        case null = 0x6E  // n
        case isTrue = 0x54  // T
        case isFalse = 0x46  // F
        case signed = 0x69  // i
        case unsigned = 0x75  // u
        case double = 0x66  // f
        case string = 0x73  // s
        case data = 0x62  // b
        case date = 0x74  // t
        case array = 0x61  // a
        case dictionary = 0x64  // d
    }

    private static func append(_ value: StoredValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let flag): bytes.append(flag ? Tag.isTrue.rawValue : Tag.isFalse.rawValue)
        case .signedInteger(let integer): appendWord(UInt64(bitPattern: integer), tag: .signed, to: &bytes)
        case .unsignedInteger(let integer): appendWord(integer, tag: .unsigned, to: &bytes)
        case .double(let number): appendWord(number.bitPattern, tag: .double, to: &bytes)
        case .date(let date): appendWord(date.timeIntervalSinceReferenceDate.bitPattern, tag: .date, to: &bytes)
        case .string(let text): appendBytes(Array(text.utf8), tag: .string, to: &bytes)
        case .data(let data): appendBytes(Array(data), tag: .data, to: &bytes)
        case .array(let elements):
            appendWord(UInt64(elements.count), tag: .array, to: &bytes)
            for element in elements { append(element, to: &bytes) }
        case .dictionary(let members):
            appendWord(UInt64(members.count), tag: .dictionary, to: &bytes)
            // Sorted, so one value always has one encoding.
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                appendLength(of: Array(key.utf8), to: &bytes)
                append(member, to: &bytes)
            }
        }
    }

    private static func appendWord(_ word: UInt64, tag: Tag, to bytes: inout [UInt8]) {
        bytes.append(tag.rawValue)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    private static func appendBytes(_ content: [UInt8], tag: Tag, to bytes: inout [UInt8]) {
        bytes.append(tag.rawValue)
        appendLength(of: content, to: &bytes)
    }

    private static func appendLength(of content: [UInt8], to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(content.count) >> UInt64(shift))) }
        bytes += content
    }

    /// Reads the form back, checking every length against what is left, so damaged bytes give `nil`, never a trap.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        /// Deep enough for any settings value, shallow enough that damaged bytes can not exhaust the stack.
        static let maximumDepth = 512

        mutating func value(depth: Int) -> StoredValue? {
            guard depth < Self.maximumDepth, offset < bytes.count, let tag = Tag(rawValue: bytes[offset]) else { return nil }
            offset += 1
            switch tag {
            case .null: return .null
            case .isTrue: return .bool(true)
            case .isFalse: return .bool(false)
            case .signed: return word().map { .signedInteger(Int64(bitPattern: $0)) }
            case .unsigned: return word().map { .unsignedInteger($0) }
            case .double: return word().map { .double(Double(bitPattern: $0)) }
            case .date: return word().map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
            case .string:
                guard let content = content() else { return nil }
                return String(validating: content, as: UTF8.self).map { .string($0) }
            case .data: return content().map { .data(Data($0)) }
            case .array:
                // Each element takes at least a byte, so a count beyond what is left is damage.
                guard let count = word(), count <= UInt64(bytes.count - offset) else { return nil }
                var elements: [StoredValue] = []
                // Bounded: damaged counts at every level of nesting must not reserve gigabytes.
                elements.reserveCapacity(min(Int(count), 1024))
                for _ in 0..<count {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                }
                return .array(elements)
            case .dictionary:
                guard let count = word(), count <= UInt64(bytes.count - offset) else { return nil }
                var members: [String: StoredValue] = [:]
                for _ in 0..<count {
                    guard let keyBytes = content(), let key = String(validating: keyBytes, as: UTF8.self),
                        members[key] == nil, let member = value(depth: depth + 1)
                    else { return nil }
                    members[key] = member
                }
                return .dictionary(members)
            }
        }

        mutating func word() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            return bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func content() -> ArraySlice<UInt8>? {
            guard let length = word(), length <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(length) }
            return bytes[offset..<offset + Int(length)]
        }
    }
}
