/// What reading a key produced: kept in a reference's cache so that repeated
/// reads of an unchanged key do no store access and no decoding.
@usableFromInline
package enum ReadResult<Value: Sendable>: Sendable {
    case absent
    case present(Value)
    /// Indirect, so that a cache holds a pointer rather than a whole
    /// `StorageError` beside every value: every live reference keeps one.
    indirect case failed(StorageError)

    @inlinable @inline(__always) var value: Value? {
        if case .present(let value) = self { return value }
        return nil
    }
}
