import Synchronization

extension StorageReference {
    /// Reads the value, throwing any error; for Stowage's own throwing reads
    /// (`store.value(forKey:)`). A failed read is also reported once, like
    /// every failed read.
    /// - Returns: the value, or `nil` when the key is absent.
    /// - Throws: ``StorageError`` when the store fails or the value is not a valid `Value`.
    @inlinable
    package func read() throws -> Value? {
        core.trackAccess()
        switch readResult() {
        case .absent: return nil
        case .present(let value): return value
        case .failed(let error): throw error
        }
    }

    /// Whether the store holds a value for the key (readable as `Value` or not).
    @inlinable
    package var hasStoredValue: Bool {
        core.trackAccess()
        if case .absent = readResult() { return false }
        return true
    }

    /// The cached result, or a fresh read that fills the cache unless a change raced it.
    @inlinable @inline(__always)
    package func readResult() -> ReadResult<Value> {
        if let value = core.fastValue() { return .present(value) }
        if let cached = core.cachedRead().0 { return cached }
        return readAndCache()
    }

    /// The slow path of `read()`: kept out of line so the inlined fast path stays small.
    ///
    /// Reads that fill the cache take turns, and each looks at the cache
    /// again when its turn comes. A store applies a change before it
    /// announces it, so two reads that missed the cache in one generation
    /// can take different values from the store; were they to fill the cache
    /// in the other order, a thread that had read the newer value would next
    /// read the older one from the cache (the soak test saw a counter go from
    /// 239 back to 238). Taking turns, the cache is filled in the order the
    /// store was read, and reads that miss together cost one store read.
    @usableFromInline
    func readAndCache() -> ReadResult<Value> {
        let thread = currentThreadIdentifier()
        // This thread is already reading the key for the cache, further down the stack: read without it.
        if core.storeReadTurnHolder == thread { return readFromStorage() }
        let waitsForAnotherRead = core.storeReadTurnHolder != 0
        if waitsForAnotherRead { ReadsWaitingForTurn.shared.add(1, for: core) }
        core.acquireStoreReadTurn(as: thread)
        if waitsForAnotherRead { ReadsWaitingForTurn.shared.add(-1, for: core) }
        let (cached, generation) = core.cachedRead()
        let result = cached ?? readFromStorage()
        if cached == nil {
            state.withLock { state in
                // A change announced during the read may or may not be in `result`: leave the cache to the next read.
                core.setCached(state.generation == generation ? result : nil, in: &state)
                if case .failed(let error) = result { state.lastError = error } else { state.lastError = nil }
            }
        }
        core.releaseStoreReadTurn()
        // Reported once per failing value: the failure is cached until the key changes.
        if cached == nil, case .failed(let error) = result { error.report(from: storage) }
        return result
    }

    /// Reads and decodes without touching the cache.
    func readFromStorage() -> ReadResult<Value> {
        do {
            guard let value = try storage.readValue(forKey: key, as: Value.self) else { return .absent }
            return .present(value)
        } catch {
            return .failed(storageError(from: error, reading: true))
        }
    }

    /// Any error as a `StorageError` naming this key.
    @usableFromInline
    func storageError(from error: any Error, reading: Bool) -> StorageError {
        let verb = reading ? "read" : "written"
        return StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be \(verb) by the store.")
    }

    @usableFromInline
    func reportFailure(_ error: any Error) {
        let storageError = storageError(from: error, reading: false)
        state.withLock { $0.lastError = storageError }
        storageError.report(from: storage)
    }
}
