
/// Receives the news that a key changed; implemented by ``StorageReference``.
@usableFromInline
package protocol ChangeReceiving: AnyObject, Sendable {
    func storageDidChange()
    /// Drops the cached value, telling no one: the store is applying a change it announces afterwards.
    func discardCachedValue()
    /// Called once another live reference shares this one's key, so writes
    /// through it start telling the others; until then they skip the registry.
    func noteSiblingReference()
}

/// The process-wide table of live references: at most one per (store instance,
/// key, reference type), held weakly so that a reference lives exactly as long
/// as someone uses it.
///
/// Entries of dead references are swept lazily on insertion, never from a
/// reference's `deinit`, so no `deinit` ever runs while the table is locked.
@usableFromInline
final class ReferenceRegistry: Sendable {
    @usableFromInline static let shared = ReferenceRegistry()

    private struct Slot: Hashable {
        let store: ObjectIdentifier
        let key: String
    }

    /// A class, so that reading entries copies a strong pointer: copying a
    /// struct holding a weak reference copies the weak reference, which was a
    /// quarter of a lookup.
    private final class Entry: Sendable {
        let referenceType: ObjectIdentifier
        weak let reference: (any ChangeReceiving)?

        init(referenceType: ObjectIdentifier, reference: any ChangeReceiving) {
            self.referenceType = referenceType
            self.reference = reference
        }
    }

    private struct State {
        var slots: [Slot: [Entry]] = [:]
        var insertionsUntilSweep = 1024
    }

    private let state = Locked(State())

    /// The live reference of the type identified by `referenceType` for `key`
    /// in the store identified by `storeID`, if there is one. Not generic, so
    /// callers specialised in another module pay no metadata lookups here.
    @usableFromInline
    func existingReference(ofType referenceType: ObjectIdentifier, storeID: ObjectIdentifier, key: String) -> (any ChangeReceiving)? {
        let slot = Slot(store: storeID, key: key)
        return state.withLock { state -> (any ChangeReceiving)? in
            guard let entries = state.slots[slot] else { return nil }
            return Self.liveReference(ofType: referenceType, in: entries)
        }
    }

    /// The live reference for `key` in `store`, made by `make` if there is none.
    @usableFromInline
    func reference(
        ofType referenceType: ObjectIdentifier, storeID: ObjectIdentifier, key: String, make: () -> any ChangeReceiving
    ) -> any ChangeReceiving {
        let slot = Slot(store: storeID, key: key)
        // Strong copies of references read while locked are released only after
        // unlocking, so that no `deinit` runs inside the lock.
        var released: [any ChangeReceiving] = []
        let result = state.withLock { state -> any ChangeReceiving in
            if let entries = state.slots[slot], let live = Self.liveReference(ofType: referenceType, in: entries) {
                return live
            }
            var entries = state.slots[slot] ?? []
            let made = make()
            entries.removeAll { entry in
                guard let live = entry.reference else { return true }
                released.append(live)
                return false
            }
            if !released.isEmpty {
                made.noteSiblingReference()
                for sibling in released { sibling.noteSiblingReference() }
            }
            entries.append(Entry(referenceType: referenceType, reference: made))
            state.slots[slot] = entries
            state.insertionsUntilSweep -= 1
            if state.insertionsUntilSweep <= 0 { Self.sweep(&state, keepingAlive: &released) }
            return made
        }
        released.removeAll()
        return result
    }

    /// Every live reference to `key` in `store`, of any value type, except `excluded`.
    ///
    /// The common case, where the writer is the key's only reference, allocates nothing.
    @usableFromInline
    func references(storeID: ObjectIdentifier, key: String, excluding excluded: AnyObject? = nil) -> [any ChangeReceiving] {
        let slot = Slot(store: storeID, key: key)
        return state.withLock { state in
            guard let entries = state.slots[slot] else { return [] }
            if entries.count == 1, let excluded, entries[0].reference === excluded { return [] }
            return entries.compactMap { entry in
                guard let reference = entry.reference, reference !== excluded else { return nil }
                return reference
            }
        }
    }

    /// Every live reference to any of `keys` in the store identified by `storeID`, under one lock.
    func references(storeID: ObjectIdentifier, keys: some Sequence<String>) -> [any ChangeReceiving] {
        state.withLock { state in
            var found: [any ChangeReceiving] = []
            for key in keys {
                guard let entries = state.slots[Slot(store: storeID, key: key)] else { continue }
                found.append(contentsOf: entries.compactMap(\.reference))
            }
            return found
        }
    }

    /// Every live reference into `store`, for a change whose keys are unknown.
    func references(store: some AnyObject) -> [any ChangeReceiving] {
        let storeID = ObjectIdentifier(store)
        return state.withLock { state in
            state.slots.lazy.filter { $0.key.store == storeID }.flatMap { $0.value.compactMap(\.reference) }
        }
    }

    private static func liveReference(ofType referenceType: ObjectIdentifier, in entries: [Entry]) -> (any ChangeReceiving)? {
        for entry in entries where entry.referenceType == referenceType {
            if let live = entry.reference { return live }
        }
        return nil
    }

    /// Drops dead entries; the next sweep is due after as many insertions as
    /// there are live entries, so sweeping costs O(1) per insertion.
    private static func sweep(_ state: inout State, keepingAlive released: inout [any ChangeReceiving]) {
        var liveCount = 0
        state.slots = state.slots.compactMapValues { entries in
            let live = entries.filter { entry in
                guard let reference = entry.reference else { return false }
                released.append(reference)
                return true
            }
            liveCount += live.count
            return live.isEmpty ? nil : live
        }
        state.insertionsUntilSweep = max(1024, liveCount)
    }
}
