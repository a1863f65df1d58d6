/// Reads a sequence's elements from a stored array, in order.
///
/// The index only advances once an element has decoded, as with Swift's own
/// decoders, so code that catches a failure can try the same element again
/// as another type.
struct UnkeyedStoredValueDecodingContainer: UnkeyedDecodingContainer {
    let elements: [StoredValue]
    let path: CodingPathNode
    private(set) var currentIndex = 0

    init(elements: [StoredValue], path: CodingPathNode) {
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try nextValue(expected: "null") else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try nextValue(expected: "a boolean").boolValue(at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try nextValue(expected: "a string").stringValue(at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try nextValue(expected: "a floating-point number").doubleValue(at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let result = try nextValue(expected: "a floating-point number").floatValue(at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let stored = try nextValue(expected: "a value of type \(Value.self)")
        let result = try StoredValueDecoderImplementation.decode(type, from: stored, at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let stored = try nextValue(expected: "a dictionary")
        guard case .dictionary(let entries) = stored else {
            throw StorageError.codingTypeMismatch(expected: "a dictionary", found: stored, at: currentPath)
        }
        let nested = KeyedStoredValueDecodingContainer<NestedKey>(entries: entries, path: currentPath)
        currentIndex += 1
        return KeyedDecodingContainer(nested)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let stored = try nextValue(expected: "an array")
        guard case .array(let nestedElements) = stored else {
            throw StorageError.codingTypeMismatch(expected: "an array", found: stored, at: currentPath)
        }
        let nested = UnkeyedStoredValueDecodingContainer(elements: nestedElements, path: currentPath)
        currentIndex += 1
        return nested
    }

    mutating func superDecoder() throws -> any Decoder {
        let stored = try nextValue(expected: "a value")
        let decoder = StoredValueDecoderImplementation(value: stored, path: currentPath)
        currentIndex += 1
        return decoder
    }

    /// The path of the element about to be read; built only when needed.
    private var currentPath: CodingPathNode { .index(currentIndex, parent: path) }

    /// The element about to be read, without moving past it, so that a failed
    /// decode leaves the index where it was.
    private func nextValue(expected: @autoclosure () -> String) throws -> StoredValue {
        guard currentIndex < elements.count else {
            throw StorageError.codingMissingElement(expected: expected(), at: currentPath)
        }
        return elements[currentIndex]
    }

    private mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        let result = try nextValue(expected: "an integer").integerValue(as: type, at: currentPath)
        currentIndex += 1
        return result
    }
}
