public import Observation

/// The part of a ``StorageReference`` that every read touches: the cache and
/// the Observation registrar.
///
/// It is a separate object because the registry holds references weakly, and
/// a weakly referenced object pays for a side table on every retain and
/// release; measured, that was half of a wrapper read. Wrappers keep the core
/// strongly and read through it, so a cached read retains nothing that is
/// weakly referenced. The core is also the subject the Observation framework
/// tracks, so tracking works the same from a wrapper or a reference.
@usableFromInline
final class ReferenceCore<Value: Storable>: Observable, Sendable {
    @usableFromInline let state = Locked(ReferenceState<Value>())
    @usableFromInline let registrar = ObservationRegistrar()
    /// Built once: forming a key path in generic code costs more than a cached read.
    @usableFromInline nonisolated(unsafe) let trackedKeyPath: KeyPath<ReferenceCore, Void>

    init() {
        trackedKeyPath = \.changeMarker
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
