import Synchronization

extension StorageReference: ChangeReceiving {
    /// Marks that another reference type shares this key, so writes through
    /// this one tell it (see `didWrite`).
    @usableFromInline
    package func noteSiblingReference() {
        hasSiblings.store(true, ordering: .sequentiallyConsistent)
    }

    /// The core, which the registry keeps beside the reference.
    @usableFromInline
    var observedKey: ObservedKey { core }

    /// Called when the key changed by any other route than this reference.
    @usableFromInline
    package func storageDidChange() {
        if recordChange() { deliverToObservers() }
    }

    /// Called under the store's lock while it applies a change of several
    /// keys; a read that raced it will not fill the cache either.
    @usableFromInline
    package func discardCachedValue() {
        state.withLock { state in
            core.setCached(nil, in: &state)
            state.generation &+= 1
        }
    }
}

extension StorageReference {
    /// The current value, then every change, as an independent stream.
    ///
    /// Each access makes a new stream; ending or cancelling one never affects
    /// another. A value that can not be read as `Value` arrives as `nil` and is
    /// reported. The stream keeps the reference alive until it ends and
    /// buffers every change, so a consumer that falls behind still sees each
    /// distinct value in order.
    public var changes: AsyncStream<Value?> {
        makeChangeStream { $0.value }
    }

    /// Calls `handler` after every change of the value (not with the current one).
    ///
    /// The handler runs on a thread that made or announced a change (one
    /// thread delivers at a time, so values arrive in order), never under a
    /// Stowage lock; it may run after the write that caused it has returned. Observing stops when the returned token is
    /// cancelled or deinitialised.
    /// - Returns: a token; keep it as long as you want to observe.
    public func observe(_ handler: @escaping @Sendable (Value?) -> Void) -> ObservationToken {
        let current = ReferenceObserver<Value>.Delivered(readFromStorage())
        let id = addObserver(ReferenceObserver(deliver: { handler($0.value) }, lastDelivered: current))
        // A change between the read above and the registration must not be missed.
        deliverToObservers()
        return ObservationToken { [self] in removeObserver(id) }
    }

    /// A stream fed by an observer that first delivers the current value.
    package func makeChangeStream<Element: Sendable>(
        _ transform: @escaping @Sendable (ReadResult<Value>) -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = addObserver(ReferenceObserver(deliver: { continuation.yield(transform($0)) }, lastDelivered: .nothing))
        continuation.onTermination = { [self] _ in removeObserver(id) }
        deliverToObservers()
        return stream
    }

    func addObserver(_ observer: ReferenceObserver<Value>) -> UInt64 {
        state.withLock { state in
            let extras = state.madeExtras
            let id = extras.nextObserverID
            extras.nextObserverID &+= 1
            extras.observers[id] = observer
            return id
        }
    }

    func removeObserver(_ id: UInt64) {
        // Dropped after unlocking: releasing a closure may release a stream's last reference.
        let removed = state.withLock { $0.extras?.observers.removeValue(forKey: id) }
        _ = removed
    }

    /// Brings every observer up to date, one thread at a time so that values
    /// arrive in order; a thread that finds delivery under way leaves it to
    /// that thread, which goes round again.
    @usableFromInline
    func deliverToObservers() {
        let shouldDeliver = state.withLock { state -> Bool in
            guard let extras = state.extras, !extras.observers.isEmpty else { return false }
            extras.isDeliveryDue = true
            if extras.isDelivering { return false }
            extras.isDelivering = true
            return true
        }
        guard shouldDeliver else { return }
        while true {
            let observers = state.withLock { state -> [UInt64: ReferenceObserver<Value>]? in
                // Delivery began with extras, and they are never taken away.
                let extras = state.madeExtras
                guard extras.isDeliveryDue, !extras.observers.isEmpty else {
                    extras.isDelivering = false
                    return nil
                }
                extras.isDeliveryDue = false
                return extras.observers
            }
            guard let observers else { return }
            let (result, delivered) = currentResultForObservers()
            var updated: [UInt64] = []
            for (id, observer) in observers.sorted(by: { $0.key < $1.key }) where observer.lastDelivered != delivered {
                observer.deliver(result)
                updated.append(id)
            }
            state.withLock { state in
                for id in updated { state.extras?.observers[id]?.lastDelivered = delivered }
            }
        }
    }

    /// Reads for observers through the cache, so a burst of observers costs one decode.
    private func currentResultForObservers() -> (ReadResult<Value>, ReferenceObserver<Value>.Delivered) {
        let result = readResult()
        return (result, ReferenceObserver<Value>.Delivered(result))
    }
}

extension ReferenceObserver.Delivered {
    /// What an observer is considered to have seen for a given read: the
    /// canonical stored form, so that rewriting an equal value is no change.
    init(_ result: ReadResult<Value>) {
        switch result {
        case .absent: self = .absent
        case .present(let value): self = (try? value.storedValue()).map { .value($0) } ?? .failure("a value that could not be encoded")
        case .failed(let error): self = .failure(error.message)
        }
    }
}
