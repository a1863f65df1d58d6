import StowageLocking
public import Synchronization

/// The part of a ``StorageReference`` that every read touches: the cache and
/// the Observation registrar.
///
/// It is a separate object so that reads reach it without the reference:
/// the registry keeps cores and reads a cached value from one without loading
/// its reference (`store.values.name`), and the flag module's
/// `DetachedReader` keeps a core while it holds the reference only weakly. A
/// weakly referenced object pays for a side table on every retain and
/// release (half of a wrapper read, measured when the registry held
/// references weakly), so a read through the core retains nothing that may
/// be. Wrappers keep the core and read through it too. The core is also the
/// subject the Observation framework tracks, so tracking works the same from
/// a wrapper or a reference.
///
/// A value whose bits are all of it and fit in a word (`Int`, `Bool`,
/// `Double`, an enum without payloads) is also published lock-free, as a
/// seqlock made only of atomics: a reader takes no lock at all, and
/// ThreadSanitizer sees every access. Every other value is read under the lock.
///
/// It names the store's type as well as the value's, although it never
/// touches the store: its class is then the reference's identity in the
/// registry, and no field has to hold one.
@usableFromInline
final class ReferenceCore<Storage, Value: Storable>: ObservedKey, @unchecked Sendable {
    // Sendable for the reasons `ObservedKey` gives; `stateStorage` is touched
    // only while `stateLock` is held, and the rest are `let`s of Sendable
    // types or the locks themselves.

    /// Guards `stateStorage`: held for a few instructions at a time, so a
    /// `ShortLock`, in the core itself.
    @usableFromInline let stateLock = ShortLock()
    /// Guarded by `stateLock`; reached through ``state``.
    @exclusivity(unchecked) @usableFromInline var stateStorage = ReferenceState<Value>()

    /// Bit 0: a writer is updating the slot; bit 1: the slot holds a present
    /// value; the bits above count updates, so a reader can tell one happened.
    @usableFromInline let fastSequence = Atomic<UInt64>(0)
    @usableFromInline let fastBits = Atomic<UInt64>(0)

    /// The turn of reads that fill the cache (see `StorageReference.readAndCache()`
    /// for why they take turns): the thread holding it, or 0, and on Linux
    /// `storeReadTurnHasWaiters` while a thread may be parked for it. Held across a
    /// store's read, so a waiter sleeps: on Linux in the `ParkingLot`, since a
    /// platform mutex of its own was 64 bytes and an allocation for every
    /// reference, for a wait that few ever make. Naming the holder also lets a store
    /// that reads the same key again from inside that read (through an
    /// observer, say) go on without waiting for itself.
    let storeReadTurnWord = Atomic<UInt>(0)
    #if canImport(Darwin)
    /// On Apple platforms the turn is an `os_unfair_lock` of its own
    /// allocation, as before: a waiter there donates its priority to the
    /// holder, so a main-thread read queued behind a background one does not
    /// wait at the background's priority, which a condition variable would not do.
    @usableFromInline let storeReadTurn: OpaquePointer
    #else
    /// The bit of the turn's word set while a thread may be parked waiting
    /// for the turn, so that releasing it wakes no one, and takes no lock,
    /// when none are. A thread's identifier is an aligned address, whose
    /// lowest bit is always clear. (A count of its own was 8 bytes more in
    /// every reference.)
    static var storeReadTurnHasWaiters: UInt { 1 }
    #endif

    /// Inlinable, so that it is specialised where a reference is made: made
    /// generically, it looked up the metadata of every generic type in the state.
    @inlinable
    override init(storeID: ObjectIdentifier, key: String) {
        #if canImport(Darwin)
        storeReadTurn = Self.makeStoreReadTurn()
        #endif
        super.init(storeID: storeID, key: key)
    }

    #if canImport(Darwin)
    @usableFromInline
    static func makeStoreReadTurn() -> OpaquePointer { OpaquePointer(PlatformLock.make()) }

    deinit {
        PlatformLock.destroy(UnsafeMutablePointer(storeReadTurn))
    }
    #endif

    /// The state, under its lock: `core.state.withLock { $0.cached }`.
    @inlinable
    var state: StateAccess { StateAccess(core: self) }

    /// What `Locked.withLock` offered when the state lived in one, over the core's own lock.
    @usableFromInline
    struct StateAccess {
        @usableFromInline let core: ReferenceCore

        @inlinable
        init(core: ReferenceCore) { self.core = core }

        /// Runs `body` with exclusive access to the state; keep it short, and call no user code in it.
        @inlinable
        func withLock<Result, Failure: Error>(_ body: (inout ReferenceState<Value>) throws(Failure) -> Result) throws(Failure) -> Result {
            core.stateLock.acquire()
            defer { core.stateLock.release() }
            return try body(&core.stateStorage)
        }
    }

    /// The thread holding the turn to read the store for the cache, or 0.
    var storeReadTurnHolder: UInt {
        #if canImport(Darwin)
        storeReadTurnWord.load(ordering: .relaxed)
        #else
        storeReadTurnWord.load(ordering: .relaxed) & ~Self.storeReadTurnHasWaiters
        #endif
    }

    /// Waits for, then holds, the turn to read the store for the cache, as `thread`.
    func acquireStoreReadTurn(as thread: UInt) {
        #if canImport(Darwin)
        PlatformLock.acquire(UnsafeMutablePointer(storeReadTurn))
        storeReadTurnWord.store(thread, ordering: .relaxed)
        #else
        if storeReadTurnWord.compareExchange(expected: 0, desired: thread, ordering: .acquiring).exchanged { return }
        // Checked under the parking lot's lock, all sequentially consistent:
        // a waiter either takes the free turn or marks the word before it
        // sleeps, and the releaser clears the whole word, so it either sees
        // the mark and wakes the waiter, or the waiter sees the turn free.
        ParkingLot.park(on: self) {
            while true {
                let word = storeReadTurnWord.load(ordering: .sequentiallyConsistent)
                if word == 0 {
                    if storeReadTurnWord.compareExchange(expected: 0, desired: thread, ordering: .sequentiallyConsistent).exchanged { return true }
                } else if word & Self.storeReadTurnHasWaiters != 0 {
                    return false
                } else if storeReadTurnWord.compareExchange(
                    expected: word, desired: word | Self.storeReadTurnHasWaiters, ordering: .sequentiallyConsistent
                ).exchanged {
                    return false
                }
            }
        }
        #endif
    }

    func releaseStoreReadTurn() {
        #if canImport(Darwin)
        storeReadTurnWord.store(0, ordering: .relaxed)
        PlatformLock.release(UnsafeMutablePointer(storeReadTurn))
        #else
        // Every waiter woken checks again, and those that do not get the turn mark the word anew.
        let word = storeReadTurnWord.exchange(0, ordering: .sequentiallyConsistent)
        if word & Self.storeReadTurnHasWaiters != 0 { ParkingLot.wakeAll(parkedOn: self) }
        #endif
    }

    /// Whether `Value` can live in the lock-free slot; constant once specialised.
    @inlinable
    static var usesFastSlot: Bool { _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size }

    /// The cached value without taking the lock, when the slot holds one.
    @inlinable @inline(__always)
    func fastValue() -> Value? {
        guard Self.usesFastSlot else { return nil }
        let before = fastSequence.load(ordering: .acquiring)
        guard before & 0b11 == 0b10 else { return nil }
        let bits = fastBits.load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        guard fastSequence.load(ordering: .relaxed) == before else { return nil }
        return withUnsafeBytes(of: bits) { $0.load(as: Value.self) }
    }

    /// Changes the cache; called with the lock held, so writers of the slot never race each other.
    @inlinable
    func setCached(_ result: ReadResult<Value>?, in state: inout ReferenceState<Value>) {
        state.cached = result
        guard Self.usesFastSlot else { return }
        let updates = (fastSequence.load(ordering: .relaxed) >> 2) &+ 1
        fastSequence.store(updates << 2 | 0b01, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        if case .present(let value)? = result {
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { destination in
                withUnsafeBytes(of: value) { destination.copyMemory(from: $0) }
            }
            fastBits.store(bits, ordering: .relaxed)
            fastSequence.store(updates << 2 | 0b10, ordering: .releasing)
        } else {
            fastSequence.store(updates << 2, ordering: .releasing)
        }
    }

    /// The cached result, if valid, and the generation it belongs to.
    @inlinable @inline(__always)
    func cachedRead() -> (ReadResult<Value>?, UInt32) {
        state.withLock { ($0.cached, $0.generation) }
    }
}
