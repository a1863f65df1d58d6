#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import Stowage

/// Reads JSON text (RFC 8259) into a `StoredValue`, strictly.
///
/// The parser accepts exactly the JSON grammar: no comments, trailing commas,
/// single quotes, `NaN` or `Infinity`, leading zeros, unescaped control
/// characters in strings, or whitespace other than space, tab, line feed and
/// carriage return. The text must be valid UTF-8 (no overlong forms, no encoded
/// surrogates, nothing above U+10FFFF, no truncated sequences), and a `\u`
/// escape of a surrogate must be one half of a pair, which becomes one scalar.
///
/// Decisions where JSON leaves room:
///
/// - **Top level.** Any value is read; the caller checks the shape it needs.
/// - **Byte order mark.** One UTF-8 byte order mark (EF BB BF) at the very
///   start is skipped, as RFC 8259 section 8.1 allows: editors on Windows have
///   long added one to files saved as UTF-8. Anything else that looks like a
///   byte order mark (UTF-16 or UTF-32 ones) is rejected. `JSONSerializer`
///   never writes one.
/// - **Integers.** A number without fraction or exponent becomes
///   `.signedInteger` when it fits `Int64`, `.unsignedInteger` when it fits
///   `UInt64`, and otherwise `.double`, rounded to the nearest `Double`, when
///   that is finite: no integer case can hold it, and readers in other
///   languages read such numbers as doubles too. `-0` is the integer 0;
///   `-0.0` is the double negative zero.
/// - **Range.** A number whose nearest `Double` is infinite (`1e400`, or an
///   integer with more than 309 digits) is an error, never infinity. One too
///   small for a `Double` becomes zero or a subnormal, as rounding gives it.
/// - **Duplicate keys.** The last member with a key wins, as in most parsers
///   and in JavaScript. Keys are compared as Swift strings, which treats
///   canonically equivalent spellings (a precomposed "é" and "e" with a
///   combining accent) as the same key. `parseDocument(_:)` lists the
///   duplicates so a store can report them.
/// - **Depth.** Objects and arrays nested deeper than `maximumDepth` are an
///   error. The parser keeps its own stack, so no depth overflows the thread's
///   stack while parsing; the limit exists because Swift releases, compares
///   and serializes a `StoredValue` recursively, and values nested a few
///   thousand levels deep can overflow the 512 KB stack of a secondary thread.
///
/// Every error is a `StorageError` with code `.invalidJSON` whose reason says
/// what was expected and where, and never quotes the text:
/// "expected ',' or '}' after an object member at line 3, column 14."
///
/// ```swift
/// let value = try JSONParser().parse(Array(#"{"volume": 7}"#.utf8))
/// // ["volume": 7]
/// ```
package struct JSONParser: Sendable {
    /// The nesting depth the parser accepts unless told otherwise.
    package static let defaultMaximumDepth = 512

    /// How many objects and arrays may be nested inside one another; the
    /// top-level container counts as one.
    package var maximumDepth: Int

    /// Makes a parser that accepts `maximumDepth` levels of nesting.
    package init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// A parsed value together with what the parser noticed but let pass.
    package struct Document: Sendable {
        /// The top-level value.
        package var value: StoredValue

        package var duplicateKeys: [DuplicateKey]

        /// Makes a document; the parser makes them, tests compare with them.
        package init(value: StoredValue, duplicateKeys: [DuplicateKey]) {
            self.value = value
            self.duplicateKeys = duplicateKeys
        }
    }

    /// A member whose key an earlier member of the same object already had.
    ///
    /// Keys are compared as Swift compares strings, by canonical equivalence,
    /// so the two spellings may differ in their Unicode scalars (`"\u00E1"`
    /// and `"a\u0301"`). This later member is the one kept, spelling and value.
    package struct DuplicateKey: Hashable, Sendable {
        /// The key, as written in this later member.
        package var key: String
        /// The key as the member it replaced spelled it.
        package var earlierKey: String
        /// Where this later member's key starts.
        package var location: JSONSourceLocation

        /// Makes a duplicate-key record; the parser makes them, tests compare with them.
        package init(key: String, earlierKey: String? = nil, location: JSONSourceLocation) {
            self.key = key
            self.earlierKey = earlierKey ?? key
            self.location = location
        }

        /// Whether the two spellings differ in their scalars, though Swift takes them for one key.
        package var isSpelledDifferently: Bool {
            !key.unicodeScalars.elementsEqual(earlierKey.unicodeScalars)
        }

        /// The key quoted for a message; with its scalars spelled out when
        /// the earlier spelling differs, since both would print alike.
        package var quotedKeys: String {
            guard isSpelledDifferently else { return "\"\(key)\"" }
            func scalars(_ text: String) -> String {
                text.unicodeScalars.map { scalar in
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                }.joined(separator: " ")
            }
            return "\"\(key)\" (\(scalars(key))), canonically equivalent to the earlier \"\(earlierKey)\" (\(scalars(earlierKey)))"
        }
    }

    /// Parses `bytes` as one JSON text.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parse(_ bytes: UnsafeRawBufferPointer) throws(StorageError) -> StoredValue {
        try parseDocument(bytes).value
    }

    /// Parses `bytes` as one JSON text.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parse(_ bytes: [UInt8]) throws(StorageError) -> StoredValue {
        try parseDocument(bytes).value
    }

    /// Parses `data` as one JSON text.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parse(_ data: Data) throws(StorageError) -> StoredValue {
        try parseDocument(data).value
    }

    /// Parses `bytes` as one JSON text and reports the duplicate keys it let pass.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parseDocument(_ bytes: UnsafeRawBufferPointer) throws(StorageError) -> Document {
        var reader = JSONReader(bytes: bytes.assumingMemoryBound(to: UInt8.self), maximumDepth: maximumDepth)
        let value = try reader.readDocument()
        return Document(value: value, duplicateKeys: reader.duplicateKeys())
    }

    /// Parses `bytes` as one JSON text and reports the duplicate keys it let pass.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parseDocument(_ bytes: [UInt8]) throws(StorageError) -> Document {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(StorageError) -> Document in try parseDocument(buffer) }
        }
        return try result.get()
    }

    /// Parses `data` as one JSON text and reports the duplicate keys it let pass.
    ///
    /// - Throws: `StorageError` with code `.invalidJSON`.
    package func parseDocument(_ data: Data) throws(StorageError) -> Document {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(StorageError) -> Document in try parseDocument(buffer) }
        }
        return try result.get()
    }
}
