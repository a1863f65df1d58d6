/// The reference registry's table: for each (store, key) with a live
/// reference, the first core of the key's chain (see `ReferenceRegistry`).
///
/// A bucket is one pointer, 8 bytes, because a core carries its store's
/// identity and its key: a `[Slot: ObservedKey]` dictionary kept the store
/// and the key again beside each pointer, 32 bytes a bucket, which at
/// 100,000 live references was 84 bytes a reference. Open addressing with
/// linear probing, at most three quarters full; a removal shifts the
/// entries after it back, so no bucket is ever a tombstone.
///
/// Not thread-safe: the registry uses it only under its lock.
struct ReferenceTable: ~Copyable {
    /// `capacity` buckets, a power of two; `nil` is empty.
    private var buckets: UnsafeMutablePointer<ObservedKey?>
    private var capacity: Int
    /// How many buckets hold a core.
    private(set) var count = 0

    init() {
        capacity = 16
        buckets = .allocate(capacity: capacity)
        buckets.initialize(repeating: nil, count: capacity)
    }

    deinit {
        buckets.deinitialize(count: capacity)
        buckets.deallocate()
    }

    /// How (store, key) pairs hash; seeded for this process.
    private let hashing = ReferenceKeyHash()

    /// The bucket holding the chain of `storeID` and `key`, or the empty
    /// bucket where it would go, and whether it was found.
    @inline(__always)
    private func bucket(storeID: ObjectIdentifier, key: String) -> (index: Int, found: Bool) {
        let mask = capacity &- 1
        var index = hashing.hash(storeID: storeID, key: key) & mask
        while let entry = buckets[index] {
            if entry.storeID == storeID, entry.key == key { return (index, true) }
            index = (index &+ 1) & mask
        }
        return (index, false)
    }

    /// The first core of the chain of `storeID` and `key`, if there is one.
    func first(storeID: ObjectIdentifier, key: String) -> ObservedKey? {
        let (index, found) = bucket(storeID: storeID, key: key)
        return found ? buckets[index] : nil
    }

    /// Runs `body` on the chain of `storeID` and `key`, in place: `nil` when
    /// there is none. Setting a chain adds it; setting `nil` takes it out.
    /// The cores `body` sets must belong to `storeID` and `key`.
    mutating func withFirst<Result>(storeID: ObjectIdentifier, key: String, _ body: (inout ObservedKey?) -> Result) -> Result {
        let (index, found) = bucket(storeID: storeID, key: key)
        let result = body(&buckets[index])
        switch (found, buckets[index] != nil) {
        case (false, true):
            count += 1
            if count * 4 > capacity * 3 { resize(to: capacity * 2) }
        case (true, false):
            count -= 1
            closeGap(at: index)
        default:
            break
        }
        return result
    }

    /// Calls `body` with the first core of every chain.
    func forEachFirst(_ body: (ObservedKey) -> Void) {
        for index in 0..<capacity {
            if let entry = buckets[index] { body(entry) }
        }
    }

    /// Moves back the entries after a bucket just emptied that probing
    /// would no longer reach, so lookups never stop at the gap early.
    private mutating func closeGap(at emptied: Int) {
        let mask = capacity &- 1
        var gap = emptied
        var index = (emptied &+ 1) & mask
        while let entry = buckets[index] {
            let home = hashing.hash(storeID: entry.storeID, key: entry.key) & mask
            // The entry may fill the gap unless its home lies cyclically after the gap, up to its bucket.
            let homeIsAfterGap = gap <= index ? (gap < home && home <= index) : (gap < home || home <= index)
            if !homeIsAfterGap {
                buckets[gap] = entry
                buckets[index] = nil
                gap = index
            }
            index = (index &+ 1) & mask
        }
    }

    /// Rehashes every chain into `newCapacity` buckets.
    private mutating func resize(to newCapacity: Int) {
        let old = buckets
        let oldCapacity = capacity
        buckets = .allocate(capacity: newCapacity)
        buckets.initialize(repeating: nil, count: newCapacity)
        capacity = newCapacity
        let mask = newCapacity &- 1
        for index in 0..<oldCapacity {
            guard let entry = (old + index).move() else { continue }
            var target = hashing.hash(storeID: entry.storeID, key: entry.key) & mask
            while buckets[target] != nil { target = (target &+ 1) & mask }
            buckets[target] = entry
        }
        old.deallocate()
    }
}
