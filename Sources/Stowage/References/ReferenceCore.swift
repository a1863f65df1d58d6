public import Observation
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
final class ReferenceCore<Value: Storable>: Observable, Sendable {
    @usableFromInline let state = Locked(ReferenceState<Value>())
    @usableFromInline let registrar = ObservationRegistrar()
    /// Built once: forming a key path in generic code costs more than a cached read.
    /// `nonisolated(unsafe)` only because `KeyPath` is not marked `Sendable`; it
    /// is immutable, and this one is never changed after `init`.
    @usableFromInline nonisolated(unsafe) let trackedKeyPath: KeyPath<ReferenceCore, Void>

    /// Bit 0: a writer is updating the slot; bit 1: the slot holds a present
    /// value; the bits above count updates, so a reader can tell one happened.
    @usableFromInline let fastSequence = Atomic<UInt64>(0)
    @usableFromInline let fastBits = Atomic<UInt64>(0)

    /// Held by the one read that goes to the store to fill the cache; see
    /// `StorageReference.readAndCache()` for why those reads take turns.
    let storeReadTurn = Locked(())
    /// The thread holding `storeReadTurn`, so a store that reads the same key
    /// again from inside that read (through an observer, say) does not wait for itself.
    let storeReadTurnHolder = Atomic<UInt>(0)

    init() {
        trackedKeyPath = \.changeMarker
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

    /// What observers of the key track; it has no value of its own.
    @usableFromInline var changeMarker: Void { () }

    /// Registers a read with any Observation tracking in progress.
    @inlinable @inline(__always)
    func trackAccess() {
        registrar.access(self, keyPath: trackedKeyPath)
    }

    /// Runs `body` as a change, so tracking that saw a read fires.
    @inlinable
    func withMutation<Result>(_ body: () -> Result) -> Result {
        registrar.withMutation(of: self, keyPath: trackedKeyPath, body)
    }

    /// The cached result, if valid, and the generation it belongs to.
    @inlinable @inline(__always)
    func cachedRead() -> (ReadResult<Value>?, UInt64) {
        state.withLock { ($0.cached, $0.generation) }
    }
}
