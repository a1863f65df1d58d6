public import Synchronization

/// The one live handle on a key of a store, for one value type.
///
/// There is exactly one instance per (store instance, key, value type) while
/// anyone holds it: ask for it again and you get the same object. It caches the
/// decoded value, so reading an unchanged key does no store access and no
/// decoding, and it stays correct when the key changes through another
/// reference, through the store directly, or behind Stowage's back (a change
/// the store announces).
///
/// ```swift
/// let launches = store.reference(forKey: "launchCount", as: Int.self)
/// launches.value = 3
/// try launches.modify { $0 = ($0 ?? 0) + 1 }
/// for await count in launches.changes { print(count ?? 0) }
/// ```
///
/// Reads take part in the Observation framework: reading ``value`` (or a
/// wrapper) inside `withObservationTracking` or a SwiftUI view body tracks the
/// key, whatever later changes it.
@dynamicMemberLookup
public final class StorageReference<Storage: UnderlyingStorage, Value: Storable>: Sendable {
    /// The store this reference reads and writes.
    @usableFromInline package let storage: Storage
    /// The key in the store, kept in the core, where the registry finds it.
    @inlinable
    public var key: String { core.key }

    /// The cache and the Observation registrar; see ``ReferenceCore`` for why they are apart.
    @usableFromInline let core: ReferenceCore<Storage, Value>
    /// Set once another reference type shares the key; see ``noteSiblingReference()``.
    @usableFromInline let hasSiblings = Atomic<Bool>(false)
    @usableFromInline var state: ReferenceCore<Storage, Value>.StateAccess { core.state }

    /// Made only by the registry, which guarantees one instance per key and
    /// type. Inlinable, so that making one is specialised for its types.
    @inlinable
    init(storage: Storage, key: String) {
        self.storage = storage
        core = ReferenceCore(storeID: ObjectIdentifier(storage), key: key)
    }

    deinit {
        ReferenceRegistry.shared.removeDeadEntries(storeID: ObjectIdentifier(storage), key: key)
    }

    /// The value, or `nil` when the key is absent or its value can not be read
    /// as `Value` (the error goes to ``lastError`` and ``StowageReport``).
    /// Setting `nil` removes the key; a failed write is reported the same way.
    @inlinable
    public var value: Value? {
        get {
            core.trackAccess()
            return readResult().value
        }
        set {
            do { try set(newValue) } catch { reportFailure(error) }
        }
    }

    /// The last error met reading or writing this key, until a later read or write succeeds.
    public var lastError: StorageError? {
        state.withLock { $0.lastError }
    }

    /// Reads through the value: `settings.$profile.name`.
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> Member? {
        value?[keyPath: keyPath]
    }
}
