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
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// Lets writes skip the lock entirely while no stream or handler exists, the usual case.
    private let listenerCount = Atomic<Int>(0)

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
            return id
        }
        listenerCount.add(1, ordering: .relaxed)
        return ObservationToken { [self] in
            listenerCount.subtract(1, ordering: .relaxed)
            let removed = state.withLock { state -> Listeners? in
                state.listeners[storeID]?.handlers[id] = nil
                guard state.listeners[storeID]?.handlers.isEmpty == true else { return nil }
                return state.listeners.removeValue(forKey: storeID)
            }
            _ = removed  // released after unlocking: it may hold the store's last reference
        }
    }

    @usableFromInline
    func broadcast(_ change: StoreChange, fromStoreID storeID: ObjectIdentifier) {
        guard listenerCount.load(ordering: .relaxed) > 0 else { return }
        let handlers = state.withLock { state in state.listeners[storeID].map { Array($0.handlers.values) } ?? [] }
        for handler in handlers { handler(change) }
    }
}
