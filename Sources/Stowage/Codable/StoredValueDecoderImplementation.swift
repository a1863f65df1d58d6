/// The `Decoder` a type's `init(from:)` receives, reading one `StoredValue`.
///
/// A class so that handing it to `init(from:)` as `any Decoder` does not box
/// the stored value. Containers copy only what they need (a dictionary or an
/// array, which share storage with the value) and the path.
final class StoredValueDecoderImplementation: Decoder {
    let value: StoredValue
    let path: CodingPathNode

    init(value: StoredValue, path: CodingPathNode) {
        self.value = value
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    /// Empty: `StoredValueDecoder` has no options to pass down yet.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else {
            throw StorageError.codingTypeMismatch(expected: "a dictionary", found: value, at: path)
        }
        return KeyedDecodingContainer(KeyedStoredValueDecodingContainer<Key>(entries: entries, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw StorageError.codingTypeMismatch(expected: "an array", found: value, at: path)
        }
        return UnkeyedStoredValueDecodingContainer(elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueStoredValueDecodingContainer(value: value, path: path)
    }

    /// Decodes any type from `value` at `path`, reading Foundation's leaf types
    /// and common primitives directly and giving every other type a decoder.
    ///
    /// A `StorageError` from the type's `init(from:)` passes through unchanged
    /// so that the innermost, most precise path is kept; any other error is
    /// wrapped here, where the path of the failing value is known.
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        from value: StoredValue,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> Value {
        if let directType = DirectlyCodedType(Value.self) {
            return try value.directlyDecoded(directType, as: Value.self, at: path())
        }
        let decoder = StoredValueDecoderImplementation(value: value, path: path())
        do {
            return try Value(from: decoder)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.codingDecodingFailed(Value.self, underlyingError: error, at: decoder.path)
        }
    }
}
