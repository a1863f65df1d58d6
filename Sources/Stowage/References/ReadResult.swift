/// What reading a key produced: kept in a reference's cache so that repeated
/// reads of an unchanged key do no store access and no decoding.
@usableFromInline
package enum ReadResult<Value: Sendable>: Sendable {
    case absent
    case present(Value)
    case failed(StorageError)

    @inlinable @inline(__always) var value: Value? {
        if case .present(let value) = self { return value }
        return nil
    }
}
