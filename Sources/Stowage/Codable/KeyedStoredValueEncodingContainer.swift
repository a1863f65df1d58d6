/// Writes a keyed value's fields into the dictionary its encoder resolves to.
///
/// Leaf fields go straight into the dictionary; only fields that encode
/// themselves get a child encoder, so a struct of plain fields costs one
/// dictionary and no per-field allocation.
struct KeyedStoredValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let buffer: EncodingDictionaryBuffer
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.codingKeys }

    mutating func encodeNil(forKey key: Key) throws { buffer.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { buffer.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { buffer.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { buffer.set(.double(value), forKey: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { buffer.set(.double(Double(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { buffer.set(.signedInteger(value), forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { buffer.set(.canonicalInteger(value), forKey: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { buffer.set(.signedInteger(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { buffer.set(.canonicalInteger(value), forKey: key.stringValue) }

    mutating func encode(_ value: Int128, forKey key: Key) throws {
        buffer.set(try .wideInteger(value, at: .key(key, parent: path)), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        buffer.set(try .wideInteger(value, at: .key(key, parent: path)), forKey: key.stringValue)
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        let stored = try StoredValueEncoderImplementation.encode(value, at: .key(key, parent: path))
        buffer.set(stored, forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: EncodingDictionaryBuffer
        if let existing = buffer.pendingDictionary(forKey: key.stringValue) {
            nested = existing
        } else {
            nested = EncodingDictionaryBuffer()
            buffer.setPending(.dictionary(nested), forKey: key.stringValue)
        }
        return KeyedEncodingContainer(
            KeyedStoredValueEncodingContainer<NestedKey>(buffer: nested, path: .key(key, parent: path))
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodingArrayBuffer()
        buffer.setPending(.array(nested), forKey: key.stringValue)
        return UnkeyedStoredValueEncodingContainer(buffer: nested, path: .key(key, parent: path))
    }

    mutating func superEncoder() -> any Encoder {
        makeSuperEncoder(forKey: SyntheticCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        makeSuperEncoder(forKey: key)
    }

    private func makeSuperEncoder(forKey key: some CodingKey) -> any Encoder {
        let encoder = StoredValueEncoderImplementation(path: .key(key, parent: path))
        buffer.setPending(.encoder(encoder), forKey: key.stringValue)
        return encoder
    }
}
