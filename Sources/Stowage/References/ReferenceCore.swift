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
    /// The turn of reads that fill the cache: held across a store's read, so
    /// a platform lock, which a waiter sleeps on.
    @usableFromInline let storeReadTurn: OpaquePointer

    /// Bit 0: a writer is updating the slot; bit 1: the slot holds a present
    /// value; the bits above count updates, so a reader can tell one happened.
    @usableFromInline let fastSequence = Atomic<UInt64>(0)
    @usableFromInline let fastBits = Atomic<UInt64>(0)

    /// The thread holding the store-read turn, so a store that
    /// reads the same key again from inside that read (through an observer,
    /// say) does not wait for itself. See `StorageReference.readAndCache()`
    /// for why those reads take turns.
    let storeReadTurnHolder = Atomic<UInt>(0)

    /// Inlinable, so that it is specialised where a reference is made: made
    /// generically, it looked up the metadata of every generic type in the state.
    @inlinable
    override init() {
        storeReadTurn = Self.makeStoreReadTurn()
    }

    @usableFromInline
    static func makeStoreReadTurn() -> OpaquePointer { OpaquePointer(PlatformLock.make()) }

    deinit {
        PlatformLock.destroy(UnsafeMutablePointer(storeReadTurn))
    }

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

    /// Waits for, then holds, the turn to read the store for the cache.
    func acquireStoreReadTurn() { PlatformLock.acquire(UnsafeMutablePointer(storeReadTurn)) }
    func releaseStoreReadTurn() { PlatformLock.release(UnsafeMutablePointer(storeReadTurn)) }

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
