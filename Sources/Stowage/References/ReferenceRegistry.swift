internal import StowageSwiftRuntime

/// Receives the news that a key changed; implemented by ``StorageReference``.
@usableFromInline
protocol ChangeReceiving: AnyObject, Sendable {
    func storageDidChange()
    /// Drops the cached value, telling no one: the store is applying a change it announces afterwards.
    func discardCachedValue()
    /// Called once another live reference shares this one's key, so writes
    /// through it start telling the others; until then they skip the registry.
    func noteSiblingReference()
    /// The reference's core, which the registry keeps, and which carries its entry.
    var observedKey: ObservedKey { get }
}

/// The process-wide table of live references: at most one per (store instance,
/// key, reference type), held unretained so that a reference lives exactly as
/// long as someone uses it.
///
/// The table holds each reference's core strongly, and the core carries the
/// entry: the store's identity and the key, the reference (unretained), and the
/// core of the same key's reference of another value type, if any (most keys
/// have one); the core's class is the reference's type. A reference
/// takes its entry out in its `deinit`, under the lock, so an entry never
/// outlives its reference's memory. Between a reference's last release and
/// that `deinit`, its entry is still there: every read of an entry's
/// reference retains it and then asks the Swift runtime whether its `deinit`
/// has begun (`liveReference(of:)`), and a reference that is going counts as
/// gone. (A `weak` entry did the same, but a weak reference gives its object
/// a side table, an allocation of its own: a seventh of the instructions of
/// making a reference, and 48 bytes of each.) No `deinit` ever runs while the
/// table is locked: every strong pointer to a live reference read under the
/// lock is released only after unlocking, releasing one whose `deinit` has
/// begun runs nothing, and a core the table lets go of under the lock is
/// still held by its reference, whose `deinit` is what takes the entry out
/// (the core goes only after that `deinit`). (Dead entries used to wait for
/// a sweep of the whole table, whose cost grew with the number of live
/// references.)
///
/// A read of a cached value (`store.values.name`) reads the core without
/// loading the reference: the (then weak) load and the release after it were
/// a third of such a read. A core is read so only while its entry is not
/// retired. An entry is retired as soon as any walk of the table finds its
/// reference gone, and every route by which a key changes (a write through
/// another reference, an announcement, a discard) walks the key's entries,
/// so a core whose reference died is never read after a change it missed.
@usableFromInline
final class ReferenceRegistry: @unchecked Sendable {
    // Sendable: `table` is touched only under `lock`.
    @usableFromInline static let shared = ReferenceRegistry()

    /// Held for a lookup, or for making one reference: a `ShortLock`, which
    /// costs a fraction of a `Locked`'s on every lookup.
    private let lock = ShortLock()
    /// Guarded by `lock`.
    @exclusivity(unchecked) private nonisolated(unsafe) var table = ReferenceTable()

    /// Runs `body` with the table, under the lock. No `deinit` may run in it
    /// (see above), and nothing in it waits.
    @inline(__always)
    private func withSlots<Result>(_ body: (inout ReferenceTable) -> Result) -> Result {
        lock.acquire()
        defer { lock.release() }
        return body(&table)
    }

    /// The live reference of the type identified by `referenceType` for `key`
    /// in the store identified by `storeID`, if there is one. Not generic, so
    /// callers specialised in another module pay no metadata lookups here.
    @usableFromInline
    func existingReference(ofType referenceType: ObjectIdentifier, storeID: ObjectIdentifier, key: String) -> (any ChangeReceiving)? {
        withSlots { slots -> (any ChangeReceiving)? in
            // In place: a copy of the entry is a retain and a release.
            slots.withFirst(storeID: storeID, key: key) { first in
                Self.withEntry(ofType: referenceType, in: &first) { Self.liveReference(of: $0) }
            }
        }
    }

    /// The core of the reference of the type identified by `referenceType`
    /// for `key`, without loading the reference, if its entry is not retired:
    /// a reference that is gone and missed no change left a core that is still right.
    @usableFromInline
    func existingCore(ofType referenceType: ObjectIdentifier, storeID: ObjectIdentifier, key: String) -> AnyObject? {
        withSlots { slots -> AnyObject? in
            // A plain read: the retain it makes is the one the caller needs.
            var entry = slots.first(storeID: storeID, key: key)
            while let current = entry {
                if current.registeredType == referenceType { return current.isRetired ? nil : current }
                entry = current.nextRegistered
            }
            return nil
        }
    }

    /// `body` applied to the first entry of `referenceType` in the chain, if there is one.
    @inline(__always)
    private static func withEntry<Result>(ofType referenceType: ObjectIdentifier, in first: inout ObservedKey?, _ body: (ObservedKey) -> Result?) -> Result? {
        guard let head = first else { return nil }
        // Most keys have one reference type: no walk, no further retain.
        if head.registeredType == referenceType { return body(head) }
        var entry = head.nextRegistered
        while let current = entry {
            if current.registeredType == referenceType { return body(current) }
            entry = current.nextRegistered
        }
        return nil
    }

    /// The entry's reference, or `nil` and the entry retired if its `deinit`
    /// has begun. Called under the lock, so the reference's memory is still
    /// there even then: its `deinit` waits for the lock to take the entry out.
    ///
    /// The copy is a retain, and the check comes after it: a retain made before
    /// the last release keeps the reference alive, and once the last release
    /// has begun the `deinit`, the runtime's flag for it stays set, so the
    /// check sees it. Releasing the copy of a reference being deinitialised
    /// runs no second `deinit`.
    private static func liveReference(of entry: ObservedKey) -> (any ChangeReceiving)? {
        if let candidate = entry.registeredReference, !isDeinitializing(candidate) { return candidate }
        entry.isRetired = true
        return nil
    }

    /// The live reference for `key` in `store`, made by `make` if there is none.
    @usableFromInline
    func reference(
        ofType referenceType: ObjectIdentifier, storeID: ObjectIdentifier, key: String, make: () -> any ChangeReceiving
    ) -> any ChangeReceiving {
        // Strong copies of references read while locked are released only after
        // unlocking, so that no `deinit` runs inside the lock.
        var released: [any ChangeReceiving] = []
        // One probe of the table, in place: at a million live references
        // each probe is a cache miss.
        let result = withSlots { slots in
            slots.withFirst(storeID: storeID, key: key) { first in
                Self.reference(ofType: referenceType, in: &first, make: make, released: &released)
            }
        }
        released.removeAll()
        return result
    }

    /// The live reference of `referenceType` in the chain `first`, or one
    /// made by `make` and put first in the chain.
    private static func reference(
        ofType referenceType: ObjectIdentifier, in first: inout ObservedKey?, make: () -> any ChangeReceiving,
        released: inout [any ChangeReceiving]
    ) -> any ChangeReceiving {
        guard let existing = first else {
            let made = make()
            first = entry(for: made, ofType: referenceType, next: nil)
            return made
        }
        // The usual case, first and alone: nothing to walk, nothing kept.
        if existing.registeredType == referenceType, let live = liveReference(of: existing) { return live }
        var liveEntries: [ObservedKey] = []
        var entry: ObservedKey? = existing
        while let current = entry {
            if let live = liveReference(of: current) {
                if current.registeredType == referenceType { return live }
                released.append(live)
                liveEntries.append(current)
            }
            entry = current.nextRegistered
        }
        let made = make()
        if !released.isEmpty {
            made.noteSiblingReference()
            for sibling in released { sibling.noteSiblingReference() }
        }
        // Entries whose references are gone are left out now; their `deinit` finds nothing to take.
        first = Self.entry(for: made, ofType: referenceType, next: chain(of: liveEntries))
        return made
    }

    /// `reference`'s core, made the entry of `referenceType`, followed by `next`.
    private static func entry(for reference: any ChangeReceiving, ofType referenceType: ObjectIdentifier, next: ObservedKey?) -> ObservedKey {
        let core = reference.observedKey
        assert(core.registeredType == referenceType, "a reference's core must be of the type it is registered as")
        core.registeredReference = reference
        core.nextRegistered = next
        return core
    }

    /// `entries` linked in their order.
    private static func chain(of entries: [ObservedKey]) -> ObservedKey? {
        var chain: ObservedKey? = nil
        for entry in entries.reversed() {
            entry.nextRegistered = chain
            chain = entry
        }
        return chain
    }

    /// Takes out the entries of dead references to `key` in the store
    /// identified by `storeID`; called by a reference's `deinit`.
    func removeDeadEntries(storeID: ObjectIdentifier, key: String) {
        var released: [any ChangeReceiving] = []
        withSlots { slots in
            slots.withFirst(storeID: storeID, key: key) { first in
                var liveEntries: [ObservedKey] = []
                var entry = first
                while let current = entry {
                    if let live = Self.liveReference(of: current) {
                        released.append(live)
                        liveEntries.append(current)
                    }
                    entry = current.nextRegistered
                }
                first = Self.chain(of: liveEntries)
            }
        }
        released.removeAll()
    }

    /// Every live reference to `key` in `store`, of any value type, except `excluded`.
    ///
    /// The common case, where the writer is the key's only reference, allocates nothing.
    @usableFromInline
    func references(storeID: ObjectIdentifier, key: String, excluding excluded: AnyObject? = nil) -> [any ChangeReceiving] {
        withSlots { slots in
            guard let first = slots.first(storeID: storeID, key: key) else { return [] }
            if first.nextRegistered == nil, let excluded, first.registeredReference === excluded { return [] }
            var found: [any ChangeReceiving] = []
            Self.appendLiveReferences(from: first, to: &found, excluding: excluded)
            return found
        }
    }

    /// Every live reference to any of `keys` in the store identified by `storeID`, under one lock.
    func references(storeID: ObjectIdentifier, keys: some Sequence<String>) -> [any ChangeReceiving] {
        withSlots { slots in
            var found: [any ChangeReceiving] = []
            for key in keys {
                guard let first = slots.first(storeID: storeID, key: key) else { continue }
                Self.appendLiveReferences(from: first, to: &found)
            }
            return found
        }
    }

    /// Every live reference into `store`, for a change whose keys are unknown.
    func references(store: some AnyObject) -> [any ChangeReceiving] {
        let storeID = ObjectIdentifier(store)
        return withSlots { slots in
            var found: [any ChangeReceiving] = []
            slots.forEachFirst { first in
                if first.storeID == storeID { Self.appendLiveReferences(from: first, to: &found) }
            }
            return found
        }
    }

    /// How many entries the table holds for the store identified by `storeID`,
    /// retired or not; for tests that a reference takes its entry out as it goes.
    func entryCount(storeID: ObjectIdentifier) -> Int {
        withSlots { slots in
            var count = 0
            slots.forEachFirst { first in
                guard first.storeID == storeID else { return }
                var entry: ObservedKey? = first
                while let current = entry {
                    count += 1
                    entry = current.nextRegistered
                }
            }
            return count
        }
    }

    /// Appends the live references of the chain from `first`, retiring the
    /// entries whose references are gone: the key is changing, and their
    /// cores will not hear of it.
    private static func appendLiveReferences(from first: ObservedKey, to found: inout [any ChangeReceiving], excluding excluded: AnyObject? = nil) {
        var entry: ObservedKey? = first
        while let current = entry {
            if let live = liveReference(of: current), live !== excluded { found.append(live) }
            entry = current.nextRegistered
        }
    }
}

/// Whether `object`'s last strong reference is gone and its `deinit` has begun.
@inline(__always)
private func isDeinitializing(_ object: AnyObject) -> Bool {
    swift_isDeallocating(Unmanaged.passUnretained(object).toOpaque())
}
