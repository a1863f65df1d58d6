public import Observation

/// What the Observation framework tracks for one key: the registrar, and a
/// key path to a property with no value of its own; and the reference
/// registry's entry for the key's reference, which the registry keeps here:
/// the store's identity and the key it is found by, and the reference.
///
/// Not generic, so that the key path is one object made once for the
/// process. Formed in the generic ``ReferenceCore``, `\.changeMarker` was
/// instantiated anew for every reference, from its mangled generic
/// signature: half of the instructions of making a reference.
@usableFromInline
class ObservedKey: Observable, @unchecked Sendable {
    // Sendable: the registrar is Sendable, the key path is immutable
    // (`KeyPath` is only not marked Sendable), and the registry's fields
    // below are read and written only under the registry's lock.
    @usableFromInline let registrar = ObservationRegistrar()
    /// A copy of `sharedKeyPath`, kept so that a read loads it from the object
    /// it already has in hand, rather than through a lazily initialised global.
    @usableFromInline nonisolated(unsafe) let trackedKeyPath = ObservedKey.sharedKeyPath

    @usableFromInline nonisolated(unsafe) static let sharedKeyPath: KeyPath<ObservedKey, Void> = \.changeMarker

    // The registry's entry for the reference this core belongs to, kept here
    // rather than in an object of its own: one allocation fewer a reference.
    // The reference's type is the core's own (`ReferenceCore<Storage, Value>`),
    // which lookups match, so no field holds it. The fields below the key are
    // read and written only under the registry's lock (see `ReferenceRegistry`).
    /// The store's identity, which the registry's table matches.
    @usableFromInline let storeID: ObjectIdentifier
    /// The key, which the registry's table matches; the reference reads it here too.
    @usableFromInline let key: String
    /// The reference, unretained, read only under the registry's lock; its
    /// `liveReference(of:)` tells a reference whose `deinit` has begun.
    /// Not `weak`: the first weak reference to an object gives it a side
    /// table, an allocation of its own, a seventh of the instructions of
    /// making a reference. Never left dangling: the reference's `deinit`
    /// takes its entry out of the table, under the lock every read of this holds.
    unowned(unsafe) var registeredReference: (any ChangeReceiving)?
    /// The core of the same key's reference of another value type, if any.
    var nextRegistered: ObservedKey?
    /// Set once a walk of the registry found `registeredReference` gone.
    var isRetired = false

    @inlinable
    init(storeID: ObjectIdentifier, key: String) {
        self.storeID = storeID
        self.key = key
    }

    /// The identity lookups match: that of the core's class, which names the
    /// store's and the value's types as the reference's does.
    @inline(__always)
    final var registeredType: ObjectIdentifier { ObjectIdentifier(type(of: self)) }

    /// What observers of the key track; it has no value of its own.
    @usableFromInline var changeMarker: Void { () }

    /// Registers a read with any Observation tracking in progress.
    @inlinable @inline(__always)
    final func trackAccess() {
        registrar.access(self, keyPath: trackedKeyPath)
    }

    /// Runs `body` as a change, so tracking that saw a read fires.
    @inlinable
    final func withMutation<Result>(_ body: () -> Result) -> Result {
        registrar.withMutation(of: self, keyPath: trackedKeyPath, body)
    }
}
