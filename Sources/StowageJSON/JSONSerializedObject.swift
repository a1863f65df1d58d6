import Stowage

/// A top-level object as it was serialized: its JSON text, and where each
/// member's text (`"key": value`) sits in it, in key order.
///
/// A settings file changes a few keys at a time. Serializing the next version
/// from this one copies the unchanged members' text in runs and formats only
/// the changed members, so writing a ten-thousand-key file after one change
/// costs a copy of its bytes instead of sorting and formatting every member.
package struct JSONSerializedObject: Sendable {
    /// The JSON text.
    package let bytes: [UInt8]
    /// The members' keys, sorted by code points.
    fileprivate let keys: [String]
    /// Where each member's text sits in `bytes`, in the order of `keys`.
    fileprivate let memberRanges: [Range<Int>]
    fileprivate let isPretty: Bool

    /// Serializes `object` from scratch.
    init(serializing object: [String: StoredValue], with writer: consuming JSONWriter) throws(JSONWriter.Failure) {
        let isPretty = writer.isPretty
        guard writer.maximumDepth > 0 else { throw JSONWriter.Failure(problem: .tooDeep(maximumDepth: writer.maximumDepth)) }
        guard !object.isEmpty else {
            writer.appendASCII("{}")
            self.init(bytes: writer.finish(), keys: [], memberRanges: [], isPretty: isPretty)
            return
        }
        var keysInValueOrder: [String]? = []
        let order = JSONMemberOrder(sorting: object, keepingKeysIn: &keysInValueOrder)
        var memberRanges: [Range<Int>]? = []
        memberRanges?.reserveCapacity(object.count)
        try writer.writeMembers(of: order, depth: 0, recordingRangesIn: &memberRanges)
        let keys = keysInValueOrder ?? []
        self.init(
            bytes: writer.finish(),
            keys: order.members.map { keys[$0.valueIndex] },
            memberRanges: memberRanges ?? [],
            isPretty: isPretty
        )
    }

    private init(bytes: [UInt8], keys: [String], memberRanges: [Range<Int>], isPretty: Bool) {
        self.bytes = bytes
        self.keys = keys
        self.memberRanges = memberRanges
        self.isPretty = isPretty
    }

    /// Whether writing `changedKeyCount` members anew is cheaper than
    /// serializing the whole object: each changed key costs a binary search.
    func canBeUpdated(changing changedKeyCount: Int, isPretty: Bool) -> Bool {
        self.isPretty == isPretty && changedKeyCount * 16 <= keys.count
    }

    /// Serializes `object`, which equals the object this one was serialized
    /// from except in the members named in `changedKeys` (changed, added or
    /// removed). Naming an unchanged member too only costs its formatting again.
    init(
        updating previous: JSONSerializedObject,
        to object: [String: StoredValue],
        changedKeys: Set<String>,
        with writer: consuming JSONWriter
    ) throws(JSONWriter.Failure) {
        // Where each changed key sits among the previous members, or would be
        // inserted. A key is written as the object holds it, which may differ
        // in its bytes from a canonically equivalent key in `changedKeys`.
        let edits = changedKeys.map { key in
            let member = object.index(forKey: key).map { object[$0] }
            let (position, isPresent) = previous.position(of: member?.key ?? key)
            return (position: position, key: member?.key ?? key, value: member?.value, replacesMember: isPresent)
        }.sorted { lhs, rhs in
            lhs.position != rhs.position ? lhs.position < rhs.position : lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
        }
        var keys: [String] = []
        var memberRanges: [Range<Int>] = []
        keys.reserveCapacity(object.count)
        memberRanges.reserveCapacity(object.count)
        var isFirstMember = true

        func startMember(_ writer: inout JSONWriter) {
            if isFirstMember {
                writer.append(UInt8(ascii: "{"))
                isFirstMember = false
            } else {
                writer.append(UInt8(ascii: ","))
            }
            writer.startLine(depth: 1)
        }

        /// Copies the previous members `run` as one block of text, separators included.
        func copy(_ run: Range<Int>, _ writer: inout JSONWriter) {
            guard !run.isEmpty else { return }
            startMember(&writer)
            let start = previous.memberRanges[run.lowerBound].lowerBound
            let shift = writer.count - start
            writer.append(previous.bytes[start..<previous.memberRanges[run.upperBound - 1].upperBound])
            for index in run {
                let range = previous.memberRanges[index]
                memberRanges.append(range.lowerBound + shift..<range.upperBound + shift)
            }
            keys.append(contentsOf: previous.keys[run])
        }

        var nextPrevious = 0
        for edit in edits {
            copy(nextPrevious..<edit.position, &writer)
            nextPrevious = edit.replacesMember ? edit.position + 1 : edit.position
            guard let value = edit.value else { continue }
            startMember(&writer)
            let start = writer.count
            writer.writeString(edit.key)
            if writer.isPretty {
                writer.appendASCII(": ")
            } else {
                writer.append(UInt8(ascii: ":"))
            }
            do {
                try writer.write(value, depth: 1)
            } catch {
                var failure = error
                failure.path.prepend(.key(edit.key))
                throw failure
            }
            memberRanges.append(start..<writer.count)
            keys.append(edit.key)
        }
        copy(nextPrevious..<previous.keys.count, &writer)
        if isFirstMember {
            writer.appendASCII("{}")
        } else {
            writer.startLine(depth: 0)
            writer.append(UInt8(ascii: "}"))
        }
        self.init(bytes: writer.finish(), keys: keys, memberRanges: memberRanges, isPretty: previous.isPretty)
    }

    /// Whether this holds as many members as `object`: when a removed key
    /// differs in its bytes from the member it removed, the member survives
    /// here and the caller must serialize from scratch.
    func hasMembers(of object: [String: StoredValue]) -> Bool {
        keys.count == object.count
    }

    /// The index of the first member whose key is not below `key` in code
    /// point order, and whether that member's key is `key`.
    private func position(of key: String) -> (index: Int, isPresent: Bool) {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle].utf8.lexicographicallyPrecedes(key.utf8) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, low < keys.count && keys[low].utf8.elementsEqual(key.utf8))
    }
}
