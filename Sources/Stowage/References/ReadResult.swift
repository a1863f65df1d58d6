/// What reading a key produced: kept in a reference's cache so that repeated
/// reads of an unchanged key do no store access and no decoding.
package enum ReadResult<Value: Sendable>: Sendable {
    case absent
    case present(Value)
    case failed(StorageError)

    var value: Value? {
        if case .present(let value) = self { return value }
        return nil
    }
}
