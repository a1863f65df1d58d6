
extension StorageReference {
    /// Reads the value, throwing any error. (A failed read is also reported
    /// once through `StorageError.reportingHandler`, like every failed read.)
    /// - Returns: the value, or `nil` when the key is absent.
    /// - Throws: ``StorageError`` when the store fails or the value is not a valid `Value`.
    @inlinable
    public func value() throws -> Value? {
        core.trackAccess()
        switch read() {
        case .absent: return nil
        case .present(let value): return value
        case .failed(let error): throw error
        }
    }

    /// Whether the store holds a value for the key (readable as `Value` or not).
    @inlinable
    public var hasStoredValue: Bool {
        core.trackAccess()
        if case .absent = read() { return false }
        return true
    }

    /// The cached result, or a fresh read that fills the cache unless a change raced it.
    @inlinable @inline(__always)
    package func read() -> ReadResult<Value> {
        if let value = core.fastValue() { return .present(value) }
        let (cached, generation) = core.cachedRead()
        if let cached { return cached }
        return readAndCache(startedAt: generation)
    }

    /// The slow path of `read()`: kept out of line so the inlined fast path stays small.
    @usableFromInline
    func readAndCache(startedAt generation: UInt64) -> ReadResult<Value> {
        let result = readFromStorage()
        state.withLock { state in
            if state.generation == generation { core.setCached(result, in: &state) }
            if case .failed(let error) = result { state.lastError = error } else { state.lastError = nil }
        }
        // Reported once per failing value: the failure is cached until the key changes.
        if case .failed(let error) = result { error.report() }
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
        storageError.report()
    }
}
