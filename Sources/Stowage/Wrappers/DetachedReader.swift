/// Reads a key through a reference's cache, as a wrapper does, without
/// keeping the reference or its store alive: for a reader that must outlive
/// them (the flag module's, which lives as long as the process so that a
/// flag can be copied without reference counting), while its owner keeps
/// the reference itself.
///
/// Once the reference is gone, a read gives the last value cached, or the
/// default on a miss.
@usableFromInline
package final class DetachedReader<Storage: UnderlyingStorage, Value: Storable>: Sendable {
    @usableFromInline let core: ReferenceCore<Storage, Value>
    @usableFromInline package weak let reference: StorageReference<Storage, Value>?
    @usableFromInline let defaultValue: Value

    package init(_ reference: StorageReference<Storage, Value>, default defaultValue: Value) {
        core = reference.core
        self.reference = reference
        self.defaultValue = defaultValue
    }

    /// The stored value, or the default while the key is absent or unreadable.
    @inlinable
    package var value: Value {
        core.trackAccess()
        if let value = core.fastValue() { return value }
        guard let cached = core.cachedRead().0 ?? reference?.readAndCache() else { return defaultValue }
        return cached.value ?? defaultValue
    }

    /// Tells Observation tracking in progress that the key was read, without reading it.
    @inlinable
    package func trackAccess() {
        core.trackAccess()
    }
}
