import Stowage

/// The state of one parse: a cursor over the bytes and the values read so far.
///
/// Nesting is handled with explicit stacks instead of recursion, so no input
/// can overflow the thread's stack. Members and elements of the containers
/// still open wait on `values` (and `keys`); when a container closes, its
/// members are moved into a dictionary or array of exactly the right capacity.
struct JSONReader: ~Copyable {
    /// A container that is open while its members are read.
    private struct OpenContainer {
        var isObject: Bool
        /// Where the container's values start in `values`.
        var valuesStart: Int
        /// Where the container's keys start in `keys` (objects only).
        var keysStart: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The index of the next byte to read.
    var offset = 0
    private let maximumDepth: Int
    private var containers: [OpenContainer] = []
    private var values: [StoredValue] = []
    private var keys: [String] = []
    /// Where each key in `keys` starts, to locate a duplicate.
    private var keyOffsets: [Int] = []
    private var duplicates: [(key: String, earlierKey: String, offset: Int)] = []
    /// Reused to build strings that contain escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// The byte at `index`, or 0 past the end.
    ///
    /// 0 can stand for the end because a NUL byte is wrong everywhere a caller
    /// looks: outside strings it is not JSON, inside them it is an unescaped
    /// control character. Errors check `index < bytes.count` to tell the two apart.
    @inline(__always)
    func byte(at index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    static func byteOrderMarkLength(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Reads the whole input as one JSON text.
    mutating func readDocument() throws(StorageError) -> StoredValue {
        offset = Self.byteOrderMarkLength(of: bytes)
        readValues: while true {
            skipWhitespace()
            switch byte(at: offset) {
            case UInt8(ascii: "{"):
                try checkDepth()
                offset += 1
                skipWhitespace()
                if byte(at: offset) == UInt8(ascii: "}") {
                    offset += 1
                    values.append(.dictionary([:]))
                } else {
                    containers.append(OpenContainer(isObject: true, valuesStart: values.count, keysStart: keys.count))
                    try readMemberKey(after: "'{'")
                    continue readValues
                }
            case UInt8(ascii: "["):
                try checkDepth()
                offset += 1
                skipWhitespace()
                if byte(at: offset) == UInt8(ascii: "]") {
                    offset += 1
                    values.append(.array([]))
                } else {
                    containers.append(OpenContainer(isObject: false, valuesStart: values.count, keysStart: keys.count))
                    continue readValues
                }
            case UInt8(ascii: "\""):
                values.append(.string(try readString()))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                values.append(try readNumber())
            case UInt8(ascii: "t"):
                try readLiteral("true")
                values.append(.bool(true))
            case UInt8(ascii: "f"):
                try readLiteral("false")
                values.append(.bool(false))
            case UInt8(ascii: "n"):
                try readLiteral("null")
                values.append(.null)
            default:
                throw expectedValueError()
            }

            // A value is complete: close every container it completes, then
            // go on with the next member or element.
            while let container = containers.last {
                skipWhitespace()
                let next = byte(at: offset)
                if container.isObject {
                    if next == UInt8(ascii: ",") {
                        offset += 1
                        skipWhitespace()
                        try readMemberKey(after: "','")
                        continue readValues
                    }
                    guard next == UInt8(ascii: "}") else {
                        throw error("expected ',' or '}' after an object member", at: offset)
                    }
                    offset += 1
                    containers.removeLast()
                    closeObject(container)
                } else {
                    if next == UInt8(ascii: ",") {
                        offset += 1
                        continue readValues
                    }
                    guard next == UInt8(ascii: "]") else {
                        throw error("expected ',' or ']' after an array element", at: offset)
                    }
                    offset += 1
                    containers.removeLast()
                    closeArray(container)
                }
            }
            break
        }

        skipWhitespace()
        guard offset == bytes.count else {
            throw error("expected the end of the input after the top-level value", at: offset)
        }
        return values.removeLast()
    }

    /// The duplicate keys met so far, with their locations, in input order.
    func duplicateKeys() -> [JSONParser.DuplicateKey] {
        guard !duplicates.isEmpty else { return [] }
        let sorted = duplicates.sorted { $0.offset < $1.offset }
        let locations = JSONSourceLocation.locations(ofSortedOffsets: sorted.map(\.offset), in: bytes)
        return zip(sorted, locations).map { JSONParser.DuplicateKey(key: $0.key, earlierKey: $0.earlierKey, location: $1) }
    }

    /// Skips the four JSON whitespace characters and nothing else.
    @inline(__always)
    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                offset += 1
            default:
                return
            }
        }
    }

    private func checkDepth() throws(StorageError) {
        guard containers.count < maximumDepth else {
            throw error("found objects and arrays nested more than \(maximumDepth) levels deep", at: offset)
        }
    }

    /// Reads an object member's key and the colon after it.
    private mutating func readMemberKey(after previous: String) throws(StorageError) {
        guard byte(at: offset) == UInt8(ascii: "\"") else {
            throw error("expected a string key in double quotes after \(previous)", at: offset)
        }
        let keyOffset = offset
        keys.append(try readString())
        keyOffsets.append(keyOffset)
        skipWhitespace()
        guard byte(at: offset) == UInt8(ascii: ":") else {
            throw error("expected ':' after an object key", at: offset)
        }
        offset += 1
    }

    private mutating func closeObject(_ container: OpenContainer) {
        let count = keys.count - container.keysStart
        var dictionary = [String: StoredValue](minimumCapacity: count)
        for index in 0..<count {
            let key = keys[container.keysStart + index]
            // Keys are Swift strings, equal when canonically equivalent, so "\u00E1" and "a\u0301" are
            // one key. The last member wins whole: its value and its spelling, which the next write keeps.
            if let earlier = dictionary.index(forKey: key) {
                duplicates.append((key, dictionary.keys[earlier], keyOffsets[container.keysStart + index]))
                dictionary.remove(at: earlier)
            }
            dictionary[key] = values[container.valuesStart + index]
        }
        keys.removeLast(count)
        keyOffsets.removeLast(count)
        values.removeLast(count)
        values.append(.dictionary(dictionary))
    }

    private mutating func closeArray(_ container: OpenContainer) {
        let elements = Array(values[container.valuesStart...])
        values.removeLast(elements.count)
        values.append(.array(elements))
    }

    /// Reads `true`, `false` or `null`, whose first byte is already known.
    private mutating func readLiteral(_ literal: StaticString) throws(StorageError) {
        let length = literal.utf8CodeUnitCount
        guard bytes.count - offset >= length else { throw expectedValueError() }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for index in 0..<length where bytes[offset + index] != expected[index] {
            throw expectedValueError()
        }
        offset += length
    }

    private func expectedValueError() -> StorageError {
        error("expected a value (an object, array, string, number, true, false or null)", at: offset)
    }

    /// An `.invalidJSON` error about the byte at `index`, saying when the input ended there instead.
    func error(_ problem: String, at index: Int) -> StorageError {
        let found = index >= bytes.count ? " but found the end of the input" : ""
        return .invalidJSON(problem + found, at: JSONSourceLocation(offset: index, in: bytes))
    }
}
