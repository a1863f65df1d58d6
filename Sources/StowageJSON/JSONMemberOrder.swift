import Stowage

/// The members of one object in the order of their keys' Unicode code points.
///
/// Code point order is the byte order of UTF-8, so the keys are copied once
/// into one buffer and compared as bytes. The first sixteen bytes of each key
/// are kept beside it as two numbers and decide most comparisons; the rest
/// are compared eight bytes at a time. `String`'s own `<` is not used: it
/// compares canonical equivalents, so it can order two keys differently than
/// their code points, and it is several times slower here, where sorting is
/// most of the cost of writing a large object. The writer then copies each key
/// from the same buffer.
struct JSONMemberOrder {
    /// One member: where its key sits in `keyBytes`, and its value's index in `values`.
    struct Member {
        /// The first sixteen bytes of the key, big-endian and padded with zeros.
        fileprivate var leadingBytes: UInt64
        fileprivate var followingBytes: UInt64
        var keyRange: Range<Int>
        var valueIndex: Int
    }

    /// The UTF-8 of every key, one after the other.
    private(set) var keyBytes: [UInt8] = []
    /// The values, in the dictionary's own order.
    private(set) var values: [StoredValue] = []
    /// The members, sorted by key.
    private(set) var members: [Member] = []

    init(sorting object: [String: StoredValue]) {
        var keys: [String]? = nil
        self.init(sorting: object, keepingKeysIn: &keys)
    }

    /// Sorts `object`; `keys`, when not nil, collects the keys in value order.
    init(sorting object: [String: StoredValue], keepingKeysIn keys: inout [String]?) {
        values.reserveCapacity(object.count)
        members.reserveCapacity(object.count)
        keys?.reserveCapacity(object.count)
        for (key, value) in object {
            let start = keyBytes.count
            keyBytes.append(contentsOf: key.utf8)
            let (leadingBytes, followingBytes) = keyBytes.withUnsafeBytes { buffer in
                (Self.bigEndianWord(of: buffer, from: start), Self.bigEndianWord(of: buffer, from: start + 8))
            }
            members.append(
                Member(
                    leadingBytes: leadingBytes,
                    followingBytes: followingBytes,
                    keyRange: start..<keyBytes.count,
                    valueIndex: values.count
                ))
            values.append(value)
            keys?.append(key)
        }
        keyBytes.withUnsafeBytes { buffer in
            members.sort { lhs, rhs in
                if lhs.leadingBytes != rhs.leadingBytes { return lhs.leadingBytes < rhs.leadingBytes }
                if lhs.followingBytes != rhs.followingBytes { return lhs.followingBytes < rhs.followingBytes }
                return Self.precedes(lhs.keyRange, rhs.keyRange, in: buffer)
            }
        }
    }

    /// The key of `member` as a string, for error messages.
    func key(of member: Member) -> String {
        String(decoding: keyBytes[member.keyRange], as: UTF8.self)
    }

    /// Eight bytes of `bytes` from `start` as one big-endian number, padded
    /// with zeros past the end, so comparing numbers compares the bytes.
    ///
    /// The key being added is the last one in the buffer, so bytes past the
    /// buffer's end are past the key's end.
    private static func bigEndianWord(of bytes: UnsafeRawBufferPointer, from start: Int) -> UInt64 {
        if start + 8 <= bytes.count {
            return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        }
        var word: UInt64 = 0
        for index in start..<start + 8 {
            word = word << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
        }
        return word
    }

    /// Compares two keys whose first sixteen bytes (padded with zeros) are equal.
    ///
    /// Those bytes are therefore equal as far as the shorter key goes, and the
    /// comparison goes on from byte sixteen; when one key is a prefix of the
    /// other, the shorter one comes first.
    private static func precedes(_ lhs: Range<Int>, _ rhs: Range<Int>, in buffer: UnsafeRawBufferPointer) -> Bool {
        let commonCount = min(lhs.count, rhs.count)
        var index = 16
        while index + 8 <= commonCount {
            let left = UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: lhs.lowerBound + index, as: UInt64.self))
            let right = UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: rhs.lowerBound + index, as: UInt64.self))
            if left != right { return left < right }
            index += 8
        }
        while index < commonCount {
            let left = buffer[lhs.lowerBound + index]
            let right = buffer[rhs.lowerBound + index]
            if left != right { return left < right }
            index += 1
        }
        return lhs.count < rhs.count
    }
}
