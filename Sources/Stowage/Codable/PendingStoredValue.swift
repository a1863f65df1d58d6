/// A value whose contents may still change after it was placed in its parent.
///
/// `nestedContainer`, `nestedUnkeyedContainer` and `superEncoder` hand out a
/// place to write before anything is written there, so the parent keeps a
/// reference and reads the result only when the whole value is finished.
enum PendingStoredValue {
    case dictionary(EncodingDictionaryBuffer)
    case array(EncodingArrayBuffer)
    case encoder(StoredValueEncoderImplementation)

    func resolved() throws -> StoredValue {
        switch self {
        case .dictionary(let buffer): .dictionary(try buffer.resolved())
        case .array(let buffer): .array(try buffer.resolved())
        case .encoder(let encoder): try encoder.resolvedValue()
        }
    }
}
