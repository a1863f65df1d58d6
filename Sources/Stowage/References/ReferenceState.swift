/// The mutable part of a ``StorageReference``, kept in its core's `Locked`.
@usableFromInline
struct ReferenceState<Value: Storable>: Sendable {
    /// `nil` while the cache is invalid.
    @usableFromInline var cached: ReadResult<Value>?
    /// Bumped by every change, so a read that raced a change never fills the cache with a stale value.
    @usableFromInline var generation: UInt64 = 0
    /// Boxed, since it is rare and a `StorageError` is some 70 bytes: every live reference keeps this state.
    @usableFromInline var lastErrorBox: ErrorBox?
    @usableFromInline var observers: [UInt64: ReferenceObserver<Value>] = [:]
    var nextObserverID: UInt64 = 0
    /// One thread at a time delivers to observers, in order; others leave word that another round is due.
    var isDelivering = false
    var isDeliveryDue = false

    @inlinable
    init() {}
}

extension ReferenceState {
    @usableFromInline
    var lastError: StorageError? {
        get { lastErrorBox?.error }
        set { lastErrorBox = newValue.map(ErrorBox.init) }
    }

    /// A `StorageError` kept out of line.
    @usableFromInline
    final class ErrorBox: Sendable {
        @usableFromInline let error: StorageError

        init(_ error: StorageError) { self.error = error }
    }
}
