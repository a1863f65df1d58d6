/// The `Encoder` a value's `encode(to:)` receives; it builds one `StoredValue`.
///
/// A class because containers and `superEncoder()` hand out references to it
/// that all have to see the same content. Nested values that are not written
/// directly get an encoder of their own, resolved as soon as they finish.
final class StoredValueEncoderImplementation: Encoder {
    let path: CodingPathNode
    private(set) var content = EncoderContent.empty

    init(path: CodingPathNode) {
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    /// Empty: `StoredValueEncoder` has no options to pass down yet.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let buffer: EncodingDictionaryBuffer
        switch content {
        case .empty:
            buffer = EncodingDictionaryBuffer()
            content = .keyed(buffer)
        case .keyed(let existing):
            buffer = existing
        case .single, .unkeyed:
            content = .conflicting(conflictError(requested: "a keyed container"))
            buffer = EncodingDictionaryBuffer()
        case .conflicting:
            buffer = EncodingDictionaryBuffer()
        }
        return KeyedEncodingContainer(KeyedStoredValueEncodingContainer<Key>(buffer: buffer, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let buffer: EncodingArrayBuffer
        switch content {
        case .empty:
            buffer = EncodingArrayBuffer()
            content = .unkeyed(buffer)
        case .unkeyed(let existing):
            buffer = existing
        case .single, .keyed:
            content = .conflicting(conflictError(requested: "an unkeyed container"))
            buffer = EncodingArrayBuffer()
        case .conflicting:
            buffer = EncodingArrayBuffer()
        }
        return UnkeyedStoredValueEncodingContainer(buffer: buffer, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueStoredValueEncodingContainer(encoder: self)
    }

    /// Records the one value of a single-value container, refusing a second
    /// write so that a value is never silently replaced.
    func storeSingleValue(_ value: StoredValue) throws {
        switch content {
        case .empty:
            content = .single(value)
        case .conflicting(let error):
            throw error
        case .single, .keyed, .unkeyed:
            throw conflictError(requested: "a single value")
        }
    }

    /// The finished value, or the error a non-throwing call had to defer.
    func resolvedValue() throws -> StoredValue {
        switch content {
        case .empty: .dictionary([:])
        case .single(let value): value
        case .keyed(let buffer): .dictionary(try buffer.resolved())
        case .unkeyed(let buffer): .array(try buffer.resolved())
        case .conflicting(let error): throw error
        }
    }

    /// Encodes any value at `path`, writing Foundation's leaf types and common
    /// primitives directly and giving every other value an encoder of its own.
    ///
    /// A `StorageError` from the value's `encode(to:)` passes through unchanged
    /// so that the innermost, most precise path is kept; any other error is
    /// wrapped here, where the path of the failing value is known.
    static func encode<Value: Encodable>(_ value: Value, at path: @autoclosure () -> CodingPathNode) throws -> StoredValue {
        if let direct = StoredValue.directlyEncoded(value) { return direct }
        let encoder = StoredValueEncoderImplementation(path: path())
        do {
            try value.encode(to: encoder)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.codingEncodingFailed(Value.self, underlyingError: error, at: encoder.path)
        }
        let resolved = try encoder.resolvedValue()
        // Only an unkeyed container of two or more elements has an order to fix, so
        // most values skip the conformance check.
        if case .array(let elements) = resolved, elements.count > 1,
            let unordered = Value.self as? any UnorderedCollectionEncoding.Type
        {
            return .array(StoredValue.canonicallyOrdered(elements, memberLength: unordered.encodedMemberLength))
        }
        return resolved
    }

    private func conflictError(requested: String) -> StorageError {
        StorageError.codingUnrepresentable(
            "\(requested) was requested where a different kind of value was already encoded",
            at: path
        )
    }
}
