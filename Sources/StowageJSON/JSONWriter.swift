#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

/// The state of one serialization: the output bytes and the layout.
///
/// Everything is appended to one `[UInt8]` reserved up front; strings and
/// numbers are copied in runs, never character by character through `String`.
struct JSONWriter {
    /// A value that can not be written, with the path to it gathered while the
    /// error leaves the containers around it.
    struct Failure: Error {
        enum Problem {
            case nonFiniteDouble
            case dateWithoutISO8601Form
            case tooDeep(maximumDepth: Int)
        }

        var problem: Problem
        var path = JSONValuePath()

        var storageError: StorageError {
            switch problem {
            case .nonFiniteDouble:
                .unserializableJSON("found a floating-point number that is NaN or infinite, which JSON can not represent", at: path)
            case .dateWithoutISO8601Form:
                .unserializableJSON(
                    "found a date outside the years 0 through 99,999, or whose time is NaN or infinite, which ISO 8601 text can not hold",
                    at: path)
            case .tooDeep(let maximumDepth):
                .unserializableJSON("found objects and arrays nested more than \(maximumDepth) levels deep", at: path)
            }
        }
    }

    private var bytes: [UInt8] = []
    let isPretty: Bool
    let maximumDepth: Int

    init(isPretty: Bool, maximumDepth: Int, reservingCapacity capacity: Int) {
        self.isPretty = isPretty
        self.maximumDepth = maximumDepth
        bytes.reserveCapacity(capacity)
    }

    /// The finished text; pretty output ends with a line feed, as text files do.
    consuming func finish() -> [UInt8] {
        if isPretty { bytes.append(UInt8(ascii: "\n")) }
        return bytes
    }

    /// Writes `value`, which sits inside `depth` containers.
    mutating func write(_ value: StoredValue, depth: Int) throws(Failure) {
        switch value {
        case .null:
            appendASCII("null")
        case .bool(let value):
            appendASCII(value ? "true" : "false")
        case .signedInteger(let value):
            writeInteger(value.magnitude, isNegative: value < 0)
        case .unsignedInteger(let value):
            writeInteger(value, isNegative: false)
        case .double(let value):
            guard value.isFinite else { throw Failure(problem: .nonFiniteDouble) }
            writeDouble(value)
        case .string(let value):
            writeString(value)
        case .data(let value):
            writeString(value.base64EncodedString())
        case .date(let value):
            guard value.hasISO8601Form else { throw Failure(problem: .dateWithoutISO8601Form) }
            writeString(value.iso8601String)
        case .array(let elements):
            try writeArray(elements, depth: depth)
        case .dictionary(let members):
            try writeObject(members, depth: depth)
        }
    }

    private mutating func writeArray(_ elements: [StoredValue], depth: Int) throws(Failure) {
        guard depth < maximumDepth else { throw Failure(problem: .tooDeep(maximumDepth: maximumDepth)) }
        guard !elements.isEmpty else {
            appendASCII("[]")
            return
        }
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            startLine(depth: depth + 1)
            do {
                try write(element, depth: depth + 1)
            } catch {
                var failure = error
                failure.path.prepend(.index(index))
                throw failure
            }
        }
        startLine(depth: depth)
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ members: [String: StoredValue], depth: Int) throws(Failure) {
        guard depth < maximumDepth else { throw Failure(problem: .tooDeep(maximumDepth: maximumDepth)) }
        guard !members.isEmpty else {
            appendASCII("{}")
            return
        }
        var unrecorded: [Range<Int>]? = nil
        try writeMembers(of: JSONMemberOrder(sorting: members), depth: depth, recordingRangesIn: &unrecorded)
    }

    /// Writes a non-empty object's members in `order`; `memberRanges`, when
    /// not nil, collects where each member's text (`"key": value`) sits.
    mutating func writeMembers(
        of order: JSONMemberOrder, depth: Int, recordingRangesIn memberRanges: inout [Range<Int>]?
    ) throws(Failure) {
        bytes.append(UInt8(ascii: "{"))
        for (position, member) in order.members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            startLine(depth: depth + 1)
            let start = bytes.count
            order.keyBytes.withUnsafeBufferPointer { keyBytes in
                writeString(utf8: UnsafeBufferPointer(rebasing: keyBytes[member.keyRange]))
            }
            if isPretty {
                appendASCII(": ")
            } else {
                bytes.append(UInt8(ascii: ":"))
            }
            do {
                try write(order.values[member.valueIndex], depth: depth + 1)
            } catch {
                var failure = error
                failure.path.prepend(.key(order.key(of: member)))
                throw failure
            }
            memberRanges?.append(start..<bytes.count)
        }
        startLine(depth: depth)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Starts a new line indented for `depth` when pretty-printing.
    @inline(__always)
    mutating func startLine(depth: Int) {
        guard isPretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        let spaces: StaticString = "                                                                "
        var remaining = 2 * depth
        while remaining > 0 {
            let count = min(remaining, spaces.utf8CodeUnitCount)
            bytes.append(contentsOf: UnsafeBufferPointer(start: spaces.utf8Start, count: count))
            remaining -= count
        }
    }

    @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    mutating func append(_ slice: ArraySlice<UInt8>) {
        bytes.append(contentsOf: slice)
    }

    /// How many bytes have been written so far.
    var count: Int { bytes.count }

    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }
}
