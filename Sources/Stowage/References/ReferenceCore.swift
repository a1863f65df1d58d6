public import Synchronization

/// The part of a ``StorageReference`` that every read touches: the cache and
/// the Observation registrar.
///
/// It is a separate object because the registry holds references weakly, and
/// a weakly referenced object pays for a side table on every retain and
/// release; measured, that was half of a wrapper read. Wrappers keep the core
/// strongly and read through it, so a cached read retains nothing that is
/// weakly referenced. The core is also the subject the Observation framework
/// tracks, so tracking works the same from a wrapper or a reference.
///
/// A value whose bits are all of it and fit in a word (`Int`, `Bool`,
/// `Double`, an enum without payloads) is also published lock-free, as a
/// seqlock made only of atomics: a reader takes no lock at all, and
/// ThreadSanitizer sees every access. Every other value is read under the lock.
@usableFromInline
final class ReferenceCore<Value: Storable>: ObservedKey, @unchecked Sendable {
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
    /// for why they take turns): the thread holding it, or 0. Held across a
    /// store's read, so a waiter sleeps: on Linux in the `ParkingLot`, since a
    /// platform mutex of its own was 64 bytes and an allocation for every
    /// reference, for a wait that few ever make. Naming the holder also lets a store
    /// that reads the same key again from inside that read (through an
    /// observer, say) go on without waiting for itself.
    let storeReadTurnHolder = Atomic<UInt>(0)
    #if canImport(Darwin)
    /// On Apple platforms the turn is an `os_unfair_lock` of its own
    /// allocation, as before: a waiter there donates its priority to the
    /// holder, so a main-thread read queued behind a background one does not
    /// wait at the background's priority, which a condition variable would not do.
    @usableFromInline let storeReadTurn: OpaquePointer
    #else
    /// How many threads are parked waiting for the turn, so that releasing
    /// it wakes no one, and takes no lock, when none are.
    let storeReadTurnWaiters = Atomic<UInt>(0)
    #endif

    /// Inlinable, so that it is specialised where a reference is made: made
    /// generically, it looked up the metadata of every generic type in the state.
    @inlinable
    override init() {
        #if canImport(Darwin)
        storeReadTurn = Self.makeStoreReadTurn()
        #endif
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

    /// Waits for, then holds, the turn to read the store for the cache, as `thread`.
    func acquireStoreReadTurn(as thread: UInt) {
        #if canImport(Darwin)
        PlatformLock.acquire(UnsafeMutablePointer(storeReadTurn))
        storeReadTurnHolder.store(thread, ordering: .relaxed)
        #else
        if storeReadTurnHolder.compareExchange(expected: 0, desired: thread, ordering: .acquiring).exchanged { return }
        // Counted before the turn is tried under the parking lot's lock, and
        // the releaser clears the turn before it reads the count, all
        // sequentially consistent: either the releaser sees this waiter and
        // wakes it, or this waiter sees the turn free.
        storeReadTurnWaiters.add(1, ordering: .sequentiallyConsistent)
        ParkingLot.park(on: self) {
            storeReadTurnHolder.compareExchange(expected: 0, desired: thread, ordering: .sequentiallyConsistent).exchanged
        }
        storeReadTurnWaiters.subtract(1, ordering: .relaxed)
        #endif
    }

    func releaseStoreReadTurn() {
        #if canImport(Darwin)
        storeReadTurnHolder.store(0, ordering: .relaxed)
        PlatformLock.release(UnsafeMutablePointer(storeReadTurn))
        #else
        storeReadTurnHolder.store(0, ordering: .sequentiallyConsistent)
        if storeReadTurnWaiters.load(ordering: .sequentiallyConsistent) != 0 { ParkingLot.wakeAll(parkedOn: self) }
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
    func cachedRead() -> (ReadResult<Value>?, UInt64) {
        state.withLock { ($0.cached, $0.generation) }
    }
}
