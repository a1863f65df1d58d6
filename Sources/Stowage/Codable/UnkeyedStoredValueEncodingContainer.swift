/// Appends a sequence's elements to the array its encoder resolves to.
struct UnkeyedStoredValueEncodingContainer: UnkeyedEncodingContainer {
    let buffer: EncodingArrayBuffer
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.codingKeys }
    var count: Int { buffer.count }

    mutating func encodeNil() throws { buffer.append(.null) }
    mutating func encode(_ value: Bool) throws { buffer.append(.bool(value)) }
    mutating func encode(_ value: String) throws { buffer.append(.string(value)) }
    mutating func encode(_ value: Double) throws { buffer.append(.double(value)) }
    mutating func encode(_ value: Float) throws { buffer.append(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int8) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int16) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int32) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int64) throws { buffer.append(.signedInteger(value)) }
    mutating func encode(_ value: UInt) throws { buffer.append(.canonicalInteger(value)) }
    mutating func encode(_ value: UInt8) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { buffer.append(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { buffer.append(.canonicalInteger(value)) }

    mutating func encode(_ value: Int128) throws {
        buffer.append(try .wideInteger(value, at: .index(buffer.count, parent: path)))
    }

    mutating func encode(_ value: UInt128) throws {
        buffer.append(try .wideInteger(value, at: .index(buffer.count, parent: path)))
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let stored = try StoredValueEncoderImplementation.encode(value, at: .index(buffer.count, parent: path))
        buffer.append(stored)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodingDictionaryBuffer()
        let nestedPath = CodingPathNode.index(buffer.count, parent: path)
        buffer.appendPending(.dictionary(nested))
        return KeyedEncodingContainer(KeyedStoredValueEncodingContainer<NestedKey>(buffer: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodingArrayBuffer()
        let nestedPath = CodingPathNode.index(buffer.count, parent: path)
        buffer.appendPending(.array(nested))
        return UnkeyedStoredValueEncodingContainer(buffer: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = StoredValueEncoderImplementation(path: .index(buffer.count, parent: path))
        buffer.appendPending(.encoder(encoder))
        return encoder
    }
}
