/// Reads the one value of a decoder.
struct SingleValueStoredValueDecodingContainer: SingleValueDecodingContainer {
    let value: StoredValue
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.codingKeys }

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try value.boolValue(at: path) }
    func decode(_ type: String.Type) throws -> String { try value.stringValue(at: path) }
    func decode(_ type: Double.Type) throws -> Double { try value.doubleValue(at: path) }
    func decode(_ type: Float.Type) throws -> Float { try value.floatValue(at: path) }
    func decode(_ type: Int.Type) throws -> Int { try value.integerValue(as: type, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value.integerValue(as: type, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value.integerValue(as: type, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value.integerValue(as: type, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.integerValue(as: type, at: path) }
    func decode(_ type: Int128.Type) throws -> Int128 { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value.integerValue(as: type, at: path) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try value.integerValue(as: type, at: path) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try StoredValueDecoderImplementation.decode(type, from: value, at: path)
    }
}
