package import Stowage

/// Writes a `StoredValue` as JSON text (RFC 8259) in UTF-8.
///
/// The output is deterministic: object keys are always sorted by Unicode code
/// points (the byte order of their UTF-8), so the same value gives the same
/// bytes on every platform and a change shows up as a small diff.
///
/// - Integers are written exactly, from `Int64.min` to `UInt64.max`.
/// - Doubles are written in the shortest form that reads back to the same
///   `Double`, and always with a fraction or an exponent (`2.0`, `1e+100`), so
///   `JSONParser` reads them back as `.double` and never as an integer.
///   NaN and infinity have no JSON form and are an error.
/// - Strings escape `"`, `\` and the control characters (`\n`, `\t`, `\r`,
///   `\b`, `\f`, otherwise `\u00XX` in lowercase hexadecimal); everything else,
///   U+2028 and U+2029 included, is written as UTF-8.
/// - `.data` becomes a Base64 string and `.date` an ISO 8601 string with
///   milliseconds, the forms `Data` and `Date` read back from a string. A date
///   outside the years 0 through 99,999 has no such form and is an error.
///
/// Values nested deeper than `maximumDepth` are refused, so everything written
/// can be read back by a `JSONParser` with the same limit.
///
/// ```swift
/// let bytes = try JSONSerializer().serialize(["volume": 7, "theme": "dark"])
/// // {
/// //   "theme": "dark",
/// //   "volume": 7
/// // }
/// ```
package struct JSONSerializer: Sendable {
    /// The layout of the output.
    package var formatting: JSONFormatting
    /// How many objects and arrays may be nested inside one another; the
    /// top-level container counts as one.
    package var maximumDepth: Int

    /// Makes a serializer; pretty-printed output is what files use.
    package init(formatting: JSONFormatting = .prettyPrinted, maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.formatting = formatting
        self.maximumDepth = maximumDepth
    }

    /// Serializes `value` as UTF-8 JSON text.
    ///
    /// - Parameters:
    ///   - value: The value to write; any case may be at the top level.
    ///   - expectedByteCount: The size the output is likely to have, such as
    ///     the size of the file it replaces, reserved up front so the buffer
    ///     does not grow while it is written.
    /// - Returns: The JSON text, without a byte order mark.
    /// - Throws: `StorageError` with code `.encodingFailed` naming the path of
    ///   a double that is NaN or infinite, a date without an ISO 8601 form, or
    ///   a container nested too deep.
    package func serialize(_ value: StoredValue, expectedByteCount: Int = 0) throws(StorageError) -> [UInt8] {
        var writer = makeWriter(expectedByteCount: expectedByteCount)
        do {
            try writer.write(value, depth: 0)
        } catch {
            throw error.storageError
        }
        return writer.finish()
    }

    /// Serializes a top-level object, as `serialize(_:expectedByteCount:)`
    /// does, and keeps where each member sits in the text for the next call.
    package func serializeObject(_ object: [String: StoredValue], expectedByteCount: Int = 0) throws(StorageError) -> JSONSerializedObject {
        do {
            return try JSONSerializedObject(serializing: object, with: makeWriter(expectedByteCount: expectedByteCount))
        } catch {
            throw error.storageError
        }
    }

    /// Serializes `object`, which equals the object `previous` was serialized
    /// from except in the members named in `changedKeys`, by copying the text
    /// of the other members from `previous`. Gives the same bytes as
    /// serializing `object` from scratch.
    package func serializeObject(
        _ object: [String: StoredValue], changing changedKeys: Set<String>, since previous: JSONSerializedObject
    ) throws(StorageError) -> JSONSerializedObject {
        let expectedByteCount = previous.bytes.count + 64
        guard previous.canBeUpdated(changing: changedKeys.count, isPretty: formatting == .prettyPrinted) else {
            return try serializeObject(object, expectedByteCount: expectedByteCount)
        }
        do {
            let updated = try JSONSerializedObject(
                updating: previous, to: object, changedKeys: changedKeys, with: makeWriter(expectedByteCount: expectedByteCount))
            if updated.hasMembers(of: object) { return updated }
        } catch {
            throw error.storageError
        }
        return try serializeObject(object, expectedByteCount: expectedByteCount)
    }

    private func makeWriter(expectedByteCount: Int) -> JSONWriter {
        JSONWriter(
            isPretty: formatting == .prettyPrinted,
            maximumDepth: maximumDepth,
            reservingCapacity: max(expectedByteCount, 1024)
        )
    }
}
