public import Synchronization

extension StorageReference {
    /// Writes `newValue`. Writing `nil`, or a value whose stored form is null
    /// (an optional holding `nil`), removes the key.
    /// - Throws: ``StorageError`` when the value can not be encoded or the store fails.
    @inlinable
    public func set(_ newValue: Value?) throws {
        let stored = try encodeForWriting(newValue)
        let ticket = takeWriteTicket()
        do {
            try storage.writeRaw(stored, forKey: key)
        } catch {
            let failure = storageError(from: error, reading: false)
            state.withLock { $0.lastError = failure }
            didWrite(nil, ticket: ticket)
            throw failure
        }
        didWrite(cacheEntry(afterWriting: stored), ticket: ticket)
    }

    /// Atomically reads, transforms and writes the value.
    ///
    /// `body` runs outside every lock and may run more than once when another
    /// writer changes the key at the same moment; it sees the latest value each
    /// time. Setting the value to `nil` removes the key; leaving it unchanged
    /// writes nothing.
    /// - Returns: what `body` returns on the run whose result was written.
    /// - Throws: what `body` throws, or ``StorageError`` when the current value
    ///   can not be read as `Value` (nothing is written then) or the store fails.
    @discardableResult
    public func modify<Result>(_ body: (inout Value?) throws -> Result) throws -> Result {
        try modify(replacingUnreadable: false, body)
    }

    /// `modify`, optionally treating a value that can not be decoded as absent
    /// (reported), for wrappers whose reads already fall back to a default.
    func modify<Result>(replacingUnreadable: Bool, _ body: (inout Value?) throws -> Result) throws -> Result {
        while true {
            let attempt = try prepareModification(replacingUnreadable: replacingUnreadable, body)
            guard attempt.changed else { return attempt.result }
            let ticket = takeWriteTicket()
            let replaced: Bool
            do {
                replaced = try storage.replaceStoredValue(forKey: key, expecting: attempt.current, with: attempt.replacement, .granted)
            } catch {
                didWrite(nil, ticket: ticket)
                throw storageError(from: error, reading: false)
            }
            if replaced {
                didWrite(cacheEntry(afterWriting: attempt.replacement), ticket: ticket)
                return attempt.result
            }
            // Another writer got in first and nothing was written: try again from its value.
        }
    }

    /// One turn of a modification: the value read, what `body` returned,
    /// and, when `body` changed it, what to write (`nil` removes the key).
    struct Modification<Result> {
        let current: StoredValue?
        let result: Result
        let changed: Bool
        let replacement: StoredValue?
    }

    /// Reads the current value, runs `body` on it and encodes the outcome,
    /// shared by ``modify(_:)`` and ``modifyAndCommit(_:)``.
    func prepareModification<Result>(replacingUnreadable: Bool, _ body: (inout Value?) throws -> Result) throws -> Modification<Result> {
        let current: StoredValue?
        do { current = try storage.storedValue(forKey: key, .granted) } catch { throw storageError(from: error, reading: true) }
        var value: Value?
        do {
            value = try current.flatMap { $0 == .null ? nil : try storage.decode($0, as: Value.self, forKey: key) }
        } catch let error as StorageError where replacingUnreadable {
            error.report(from: storage)
            value = nil
        }
        let result = try body(&value)
        let replacement = try encodeForWriting(value)
        return Modification(current: current, result: result, changed: replacement != current, replacement: replacement)
    }

    /// The stored form to write; `nil` means remove. A value whose stored form
    /// is null (an optional holding `nil`) removes the key too, so a store
    /// never has to keep a top-level null.
    @inlinable
    func encodeForWriting(_ value: Value?) throws -> StoredValue? {
        guard let value else { return nil }
        let stored: StoredValue
        do {
            stored = try value.storedValue()
        } catch {
            throw StorageError.wrapping(error, key: key, code: .encodingFailed, reason: "the value could not be encoded for storing.")
        }
        if case .null = stored { return nil }
        return stored
    }

    /// What the cache may hold after writing `stored`: what a fresh read would
    /// decode, so the cache never disagrees with the store, even for a lossy
    /// conversion. Only word-sized values are decoded here, where that is
    /// nearly free; for others the cache is left for the next read to fill.
    @inlinable
    func cacheEntry(afterWriting stored: StoredValue?) -> ReadResult<Value>? {
        guard let stored else { return .absent }
        guard ReferenceCore<Storage, Value>.usesFastSlot, let value = try? Value(storedValue: stored) else { return nil }
        return .present(value)
    }

    /// After a write: updates this reference's cache first (with the written
    /// value, unless another change came in between: `written` is `nil` when
    /// the outcome is unknown), so that anyone told of the change below reads
    /// the new value through it; then tells the key's other references, the
    /// store-wide streams and this reference's observers.
    @inlinable
    func didWrite(_ written: ReadResult<Value>?, ticket: UInt32) {
        let hasObservers = recordChange(written: written, ticket: ticket)
        let storeID = ObjectIdentifier(storage)
        // A key with no other live reference, the usual case, needs no registry lookup.
        // Sequentially consistent on both sides: a sibling made while this write is
        // under way either sees the written value or is seen here.
        if hasSiblings.load(ordering: .sequentiallyConsistent) {
            for other in ReferenceRegistry.shared.references(storeID: storeID, key: key, excluding: self) {
                other.storageDidChange()
            }
        }
        StoreChangeBroadcaster.shared.broadcast(.key(key), fromStoreID: storeID)
        if hasObservers { deliverToObservers() }
    }

    /// Bumps the generation before a write; the write may prime the cache
    /// afterwards only if the generation is still this ticket.
    @inlinable
    func takeWriteTicket() -> UInt32 {
        state.withLock { state in
            state.generation &+= 1
            return state.generation
        }
    }

    /// Records a change of the key in the cache, as a change the Observation
    /// framework sees: keeps `written` when this reference's write was the
    /// only change since `ticket`, otherwise invalidates.
    /// - Returns: whether the reference has observers to deliver to.
    @inlinable
    func recordChange(written: ReadResult<Value>? = nil, ticket: UInt32? = nil) -> Bool {
        core.withMutation {
            state.withLock { state -> Bool in
                if let written, let ticket, state.generation == ticket {
                    core.setCached(written, in: &state)
                    state.lastError = nil
                } else {
                    core.setCached(nil, in: &state)
                }
                state.generation &+= 1
                return state.hasObservers
            }
        }
    }
}
