/// One subscriber of a reference: a stream or a closure.
@usableFromInline
struct ReferenceObserver<Value: Storable>: Sendable {
    enum Delivered: Equatable, Sendable {
        case nothing
        case absent
        case value(StoredValue)
        case failure(String)
    }

    let deliver: @Sendable (ReadResult<Value>) -> Void
    /// What this observer last saw, so it hears of actual changes only.
    var lastDelivered: Delivered
}
