/// The mutable part of a ``StorageReference``, kept in its core's `Locked`.
@usableFromInline
struct ReferenceState<Value: Storable>: Sendable {
    /// `nil` while the cache is invalid.
    @usableFromInline var cached: ReadResult<Value>?
    /// Bumped by every change, so a read that raced a change never fills the cache with a stale value.
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var lastError: StorageError?
    @usableFromInline var observers: [UInt64: ReferenceObserver<Value>] = [:]
    var nextObserverID: UInt64 = 0
    /// One thread at a time delivers to observers, in order; others leave word that another round is due.
    var isDelivering = false
    var isDeliveryDue = false
}
