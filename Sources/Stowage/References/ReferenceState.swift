/// The mutable part of a ``StorageReference``, guarded by its core's lock.
///
/// Every live reference keeps one, so what few references need (an error, observers) lives in ``Extras``, made on first use.
@usableFromInline
struct ReferenceState<Value: Storable>: Sendable {
    /// `nil` while the cache is invalid.
    @usableFromInline var cached: ReadResult<Value>?
    /// Bumped by every change, so a read that raced a change never fills the
    /// cache with a stale value. 32 bits fit beside a word-sized cached value;
    /// they would wrap only after 4 billion changes during one store read.
    @usableFromInline var generation: UInt32 = 0
    /// The last error and the observers, or `nil` while the reference has had neither.
    @usableFromInline var extras: Extras?

    @inlinable
    init() {}
}

extension ReferenceState {
    /// What few references need, out of line: a `StorageError` is some 70
    /// bytes, and most references never meet one nor have an observer.
    @usableFromInline
    final class Extras: @unchecked Sendable {
        // Sendable: touched only under the lock of the core that holds the state.
        @usableFromInline var lastError: StorageError?
        @usableFromInline var observers: [UInt64: ReferenceObserver<Value>] = [:]
        var nextObserverID: UInt64 = 0
        /// One thread at a time delivers to observers, in order; others leave word that another round is due.
        var isDelivering = false
        var isDeliveryDue = false

        init() {}
    }

    /// The extras, made if there are none yet.
    @usableFromInline
    var madeExtras: Extras {
        mutating get {
            if let extras { return extras }
            let made = Extras()
            extras = made
            return made
        }
    }

    /// Inlinable, as is `hasObservers`, so the write path checks for extras
    /// in specialised code: called generically, each looked up the generic
    /// metadata of `Extras`, some 400 instructions a write.
    @inlinable
    var lastError: StorageError? {
        get { extras?.lastError }
        set {
            // Clearing an error that was never set makes nothing.
            if newValue == nil, extras == nil { return }
            madeExtras.lastError = newValue
        }
    }

    /// Whether any observer is registered.
    @inlinable
    var hasObservers: Bool {
        guard let extras else { return false }
        return !extras.observers.isEmpty
    }
}
