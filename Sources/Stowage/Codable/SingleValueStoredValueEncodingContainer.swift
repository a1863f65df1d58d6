/// Writes the one value of an encoder; the encoder refuses a second write.
struct SingleValueStoredValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: StoredValueEncoderImplementation

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try encoder.storeSingleValue(.null) }
    mutating func encode(_ value: Bool) throws { try encoder.storeSingleValue(.bool(value)) }
    mutating func encode(_ value: String) throws { try encoder.storeSingleValue(.string(value)) }
    mutating func encode(_ value: Double) throws { try encoder.storeSingleValue(.double(value)) }
    mutating func encode(_ value: Float) throws { try encoder.storeSingleValue(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int8) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int16) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int32) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: Int64) throws { try encoder.storeSingleValue(.signedInteger(value)) }
    mutating func encode(_ value: UInt) throws { try encoder.storeSingleValue(StoredValue.canonicalInteger(value)) }
    mutating func encode(_ value: UInt8) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { try encoder.storeSingleValue(.signedInteger(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { try encoder.storeSingleValue(StoredValue.canonicalInteger(value)) }

    mutating func encode(_ value: Int128) throws {
        try encoder.storeSingleValue(StoredValue.wideInteger(value, at: encoder.path))
    }

    mutating func encode(_ value: UInt128) throws {
        try encoder.storeSingleValue(StoredValue.wideInteger(value, at: encoder.path))
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try encoder.storeSingleValue(StoredValueEncoderImplementation.encode(value, at: encoder.path))
    }
}
