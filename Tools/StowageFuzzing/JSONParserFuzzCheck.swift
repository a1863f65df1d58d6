import Stowage
import StowageJSON

/// The JSON parser over arbitrary bytes, and the serializer over everything it accepts.
///
/// Properties checked, beyond "no input traps":
///
/// - a rejected input fails with `.invalidJSON`, and an accepted one is valid UTF-8;
/// - every duplicate key reported has a location, in input order;
/// - what the parser accepts, the serializer writes (pretty and compact), and
///   parsing that text gives an identical value: same cases, same bits of
///   every double, same UTF-8 of every string; writing it again gives the same bytes;
/// - the depth limits of parser and serializer are exact: a value nested `n`
///   levels deep passes a limit of `n` and fails one of `n - 1`;
/// - serializing an object incrementally from a previous serialization gives
///   the same bytes as serializing it from scratch, for an input that is an
///   array of two objects (the previous object and the next) and for a few
///   edits of an input that is an object.
package struct JSONParserFuzzCheck: FuzzCheck {
    package static let name = "json-parser"

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        let document: JSONParser.Document
        do {
            document = try JSONParser().parseDocument(input)
        } catch {
            guard error.code == .invalidJSON else { throw PropertyViolation("rejected with code \(error.code), not invalidJSON: \(error)") }
            return
        }
        let value = document.value
        let text = input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input
        guard String(validating: text, as: UTF8.self) != nil else { throw PropertyViolation("accepted text that is not valid UTF-8") }
        try checkDuplicateKeys(document.duplicateKeys)

        for formatting in [JSONFormatting.prettyPrinted, .compact] {
            try checkRoundTrip(value, formatting: formatting)
        }
        try checkDepthLimits(value)

        if case .array(let elements) = value, elements.count == 2,
            case .dictionary(let previous) = elements[0], case .dictionary(let next) = elements[1]
        {
            try checkIncrementalSerialization(from: previous, to: next)
        }
        if case .dictionary(let object) = value {
            for edited in Self.edits(of: object) {
                try checkIncrementalSerialization(from: object, to: edited)
            }
        }
    }

    private func checkDuplicateKeys(_ duplicates: [JSONParser.DuplicateKey]) throws(PropertyViolation) {
        var previous = JSONSourceLocation(line: 1, column: 1)
        for duplicate in duplicates {
            let location = duplicate.location
            guard location.line >= 1, location.column >= 1 else { throw PropertyViolation("a duplicate key at \(location)") }
            guard (location.line, location.column) >= (previous.line, previous.column) else {
                throw PropertyViolation("duplicate keys reported out of order: \(previous), then \(location)")
            }
            previous = location
        }
    }

    private func checkRoundTrip(_ value: StoredValue, formatting: JSONFormatting) throws(PropertyViolation) {
        let serializer = JSONSerializer(formatting: formatting)
        let written = try serialize(value, with: serializer, "a parsed value")
        let reread: StoredValue
        do {
            reread = try JSONParser().parse(written)
        } catch {
            throw PropertyViolation("the \(formatting) text of a parsed value does not parse: \(error)")
        }
        guard reread.isIdentical(to: value) else {
            throw PropertyViolation("the \(formatting) text of a parsed value reads back as a different value")
        }
        guard try serialize(reread, with: serializer, "a reread value") == written else {
            throw PropertyViolation("a value written, read and written again gives other \(formatting) bytes")
        }
    }

    private func checkDepthLimits(_ value: StoredValue) throws(PropertyViolation) {
        let depth = value.nestingDepth
        guard depth > 0 else { return }
        let text = try serialize(value, with: JSONSerializer(formatting: .compact), "a parsed value")
        guard (try? JSONParser(maximumDepth: depth).parse(text)) != nil else {
            throw PropertyViolation("a parser with a limit of \(depth) levels rejects a value \(depth) levels deep")
        }
        guard (try? JSONParser(maximumDepth: depth - 1).parse(text)) == nil else {
            throw PropertyViolation("a parser with a limit of \(depth - 1) levels accepts a value \(depth) levels deep")
        }
        guard (try? JSONSerializer(maximumDepth: depth).serialize(value)) != nil else {
            throw PropertyViolation("a serializer with a limit of \(depth) levels refuses a value \(depth) levels deep")
        }
        let tooDeep = Result { () throws(StorageError) in try JSONSerializer(maximumDepth: depth - 1).serialize(value) }
        switch tooDeep {
        case .success:
            throw PropertyViolation("a serializer with a limit of \(depth - 1) levels writes a value \(depth) levels deep")
        case .failure(let error) where error.code != .encodingFailed:
            throw PropertyViolation("a value too deep fails with code \(error.code), not encodingFailed")
        case .failure:
            break
        }
    }

    private func checkIncrementalSerialization(from previous: [String: StoredValue], to next: [String: StoredValue]) throws(PropertyViolation) {
        // A member is unchanged only when its key and value have the same
        // bytes: the incremental writer copies its previous text.
        var changedKeys = Set<String>()
        for (key, value) in next where !previous.hasMember(key, identicalTo: value) { changedKeys.insert(key) }
        for key in previous.keys where next.index(forKey: key) == nil { changedKeys.insert(key) }
        // Naming an unchanged member as well is allowed and must not change the output.
        if let unchanged = next.keys.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }), !changedKeys.contains(unchanged) {
            changedKeys.insert(unchanged)
        }
        for formatting in [JSONFormatting.prettyPrinted, .compact] {
            let serializer = JSONSerializer(formatting: formatting)
            let expected = try serialize(.dictionary(next), with: serializer, "the next object")
            let fromScratch = try serialize(.dictionary(previous), with: serializer, "the previous object")
            let serialized = Result { () throws(StorageError) in
                let first = try serializer.serializeObject(previous)
                return (first.bytes, try serializer.serializeObject(next, changing: changedKeys, since: first).bytes)
            }
            guard case .success(let (first, updated)) = serialized else {
                throw PropertyViolation("serializing objects incrementally failed where serializing them from scratch did not")
            }
            guard first == fromScratch else {
                throw PropertyViolation("serializeObject and serialize write an object in different \(formatting) bytes")
            }
            guard updated == expected else {
                throw PropertyViolation(
                    "an incremental \(formatting) serialization changing \(changedKeys.count) of \(previous.count) members "
                        + "differs from serializing from scratch")
            }
        }
    }

    /// A few objects that differ from `object` by one or two members.
    private static func edits(of object: [String: StoredValue]) -> [[String: StoredValue]] {
        let sortedKeys = object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard let first = sortedKeys.first, let last = sortedKeys.last else { return [["added": .null]] }
        var withoutFirst = object
        withoutFirst[first] = nil
        var lastReplaced = object
        lastReplaced[last] = .array([.bool(true), .signedInteger(-1)])
        var added = object
        added[first + "\u{0}"] = .string("after the first key")
        added[""] = .dictionary([:])
        return [withoutFirst, lastReplaced, added]
    }

    private func serialize(_ value: StoredValue, with serializer: JSONSerializer, _ what: String) throws(PropertyViolation) -> [UInt8] {
        do {
            return try serializer.serialize(value)
        } catch {
            throw PropertyViolation("\(what) can not be serialized: \(error)")
        }
    }
}
