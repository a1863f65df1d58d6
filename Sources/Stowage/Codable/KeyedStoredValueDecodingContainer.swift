/// Reads a keyed value's fields from a stored dictionary.
///
/// A missing key and a `.null` entry both count as nil, because stores differ
/// in whether they keep an explicit null. Asking for a non-optional value whose
/// key is missing throws a `StorageError` with code `.typeMismatch`: the
/// dictionary does not have the shape the type expects.
struct KeyedStoredValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: [String: StoredValue]
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.codingKeys }

    /// Keys the caller's key type does not know are left out, as Swift's own
    /// decoders do, so that `Dictionary<Int, _>` sees only keys that parse.
    var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { presentValue(forKey: key) == nil }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try value(forKey: key, expected: "a boolean").boolValue(at: .key(key, parent: path))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try value(forKey: key, expected: "a string").stringValue(at: .key(key, parent: path))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try value(forKey: key, expected: "a floating-point number").doubleValue(at: .key(key, parent: path))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try value(forKey: key, expected: "a floating-point number").floatValue(at: .key(key, parent: path))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, forKey: key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, forKey: key) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        let stored = try value(forKey: key, expected: "a value of type \(Value.self)")
        return try StoredValueDecoderImplementation.decode(type, from: stored, at: .key(key, parent: path))
    }

    // Overridden so that an optional field costs one dictionary lookup rather
    // than the three of the protocol's default (contains, decodeNil, decode).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(forKey: key)?.boolValue(at: .key(key, parent: path))
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(forKey: key)?.stringValue(at: .key(key, parent: path))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentValue(forKey: key)?.doubleValue(at: .key(key, parent: path))
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try presentValue(forKey: key)?.floatValue(at: .key(key, parent: path))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentInteger(type, forKey: key) }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try presentInteger(type, forKey: key) }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let stored = presentValue(forKey: key) else { return nil }
        return try StoredValueDecoderImplementation.decode(type, from: stored, at: .key(key, parent: path))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let stored = try value(forKey: key, expected: "a dictionary")
        guard case .dictionary(let nestedEntries) = stored else {
            throw StorageError.codingTypeMismatch(expected: "a dictionary", found: stored, at: .key(key, parent: path))
        }
        return KeyedDecodingContainer(
            KeyedStoredValueDecodingContainer<NestedKey>(entries: nestedEntries, path: .key(key, parent: path))
        )
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let stored = try value(forKey: key, expected: "an array")
        guard case .array(let elements) = stored else {
            throw StorageError.codingTypeMismatch(expected: "an array", found: stored, at: .key(key, parent: path))
        }
        return UnkeyedStoredValueDecodingContainer(elements: elements, path: .key(key, parent: path))
    }

    func superDecoder() throws -> any Decoder {
        makeSuperDecoder(forKey: SyntheticCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        makeSuperDecoder(forKey: key)
    }

    /// A missing entry reads as `.null`, as with Swift's own decoders, so that
    /// a superclass with only optional fields decodes from nothing.
    private func makeSuperDecoder(forKey key: some CodingKey) -> any Decoder {
        StoredValueDecoderImplementation(value: entries[key.stringValue] ?? .null, path: .key(key, parent: path))
    }

    private func value(forKey key: Key, expected: @autoclosure () -> String) throws -> StoredValue {
        guard let stored = entries[key.stringValue] else {
            throw StorageError.codingMissingKey(expected: expected(), at: .key(key, parent: path))
        }
        return stored
    }

    /// The entry for `key`, or `nil` when it is missing or `.null`.
    private func presentValue(forKey key: Key) -> StoredValue? {
        guard let stored = entries[key.stringValue] else { return nil }
        if case .null = stored { return nil }
        return stored
    }

    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, forKey key: Key) throws -> Integer {
        try value(forKey: key, expected: "an integer").integerValue(as: type, at: .key(key, parent: path))
    }

    private func presentInteger<Integer: FixedWidthInteger>(_ type: Integer.Type, forKey key: Key) throws -> Integer? {
        try presentValue(forKey: key)?.integerValue(as: type, at: .key(key, parent: path))
    }
}
