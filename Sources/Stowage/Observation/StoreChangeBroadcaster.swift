import StowageLocking
import Synchronization

/// Feeds the store-wide change streams and synchronous handlers, for all stores of the process.
///
/// Each listening store is kept alive while it has listeners, so its object
/// identifier can not be reused by another store while the entry exists.
@usableFromInline
final class StoreChangeBroadcaster: Sendable {
    @usableFromInline static let shared = StoreChangeBroadcaster()

    private struct Listeners {
        let store: any AnyObject & Sendable
        /// A stream's handler yields to its continuation.
        var handlers: [UInt64: @Sendable (StoreChange) -> Void] = [:]
    }

    private struct State {
        var listeners: [ObjectIdentifier: Listeners] = [:]
        /// Stores built on a store, told when it discards cached values; see `UnderlyingStorage.discardCachedValues(forKeys:)`.
        var discardHandlers: [ObjectIdentifier: [UInt64: @Sendable ([String]) -> Void]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// One bit per store with listeners (picked by hash), so a write to a store
    /// nobody listens to skips the lock, even while a layered store or a
    /// namespace listens to others: otherwise every write of the process
    /// would take this one lock.
    private let listeningStores = Atomic<UInt64>(0)

    /// Picked from the object's address, above the 16-byte alignment bits, for speed.
    @usableFromInline
    static func bit(for storeID: ObjectIdentifier) -> UInt64 {
        1 << ((UInt64(UInt(bitPattern: storeID)) >> 4) & 63)
    }

    func stream(for store: some AnyObject & Sendable) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        let token = addHandler(for: store) { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Registers `handler` to be called, on the changing thread, with every change to `store`.
    func addHandler(for store: some AnyObject & Sendable, _ handler: @escaping @Sendable (StoreChange) -> Void) -> ObservationToken {
        let storeID = ObjectIdentifier(store)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.listeners[storeID, default: Listeners(store: store)].handlers[id] = handler
            listeningStores.bitwiseOr(Self.bit(for: storeID), ordering: .sequentiallyConsistent)
            return id
        }
        return ObservationToken { [self] in
            let removed = state.withLock { state -> Listeners? in
                state.listeners[storeID]?.handlers[id] = nil
                guard state.listeners[storeID]?.handlers.isEmpty == true else { return nil }
                let removed = state.listeners.removeValue(forKey: storeID)
                let remaining = state.listeners.keys.reduce(UInt64(0)) { $0 | Self.bit(for: $1) }
                listeningStores.store(remaining, ordering: .sequentiallyConsistent)
                return removed
            }
            _ = removed  // released after unlocking: it may hold the store's last reference
        }
    }

    /// Registers `handler` to be called with the keys whose cached values
    /// `store` discards, on the discarding thread, under that store's lock:
    /// the handler may take Stowage's reference locks, never read a store.
    func addDiscardHandler(for store: some AnyObject & Sendable, _ handler: @escaping @Sendable ([String]) -> Void) -> ObservationToken {
        let storeID = ObjectIdentifier(store)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.discardHandlers[storeID, default: [:]][id] = handler
            return id
        }
        return ObservationToken { [self] in
            state.withLock { state in
                state.discardHandlers[storeID]?[id] = nil
                if state.discardHandlers[storeID]?.isEmpty == true { state.discardHandlers[storeID] = nil }
            }
        }
    }

    /// Passes discarded keys on to the stores built on the discarding one.
    func forwardDiscard(of keys: [String], fromStoreID storeID: ObjectIdentifier) {
        let handlers = state.withLock { state in state.discardHandlers[storeID].map { Array($0.values) } ?? [] }
        for handler in handlers { handler(keys) }
    }

    @usableFromInline
    func broadcast(_ change: StoreChange, fromStoreID storeID: ObjectIdentifier) {
        let listening = listeningStores.load(ordering: .relaxed)
        guard listening != 0, listening & Self.bit(for: storeID) != 0 else { return }
        let handlers = state.withLock { state in state.listeners[storeID].map { Array($0.handlers.values) } ?? [] }
        for handler in handlers { handler(change) }
    }
}
