extension StorageReference {
    /// Writes `newValue` and returns once it is durable, as the store's
    /// ``UnderlyingStorage/commitPendingWrites()`` defines it: committed to a
    /// database that writes behind, flushed to a file. Writing `nil` removes the key.
    /// - Throws: ``StorageError`` when the value can not be encoded, or the store fails or can not commit.
    public func setAndCommit(_ newValue: Value?) async throws {
        try set(newValue)
        try await storage.commitPendingWrites()
    }

    /// ``modify(_:)`` for async code: awaits the store's compare-and-swap
    /// instead of blocking a thread on it (a networked store's takes a round
    /// trip). It returns once the write is durable: a compare-and-swap is
    /// when it succeeds. When `body` changes nothing, it waits for the
    /// writes already queued, so the value it saw is durable too.
    @discardableResult
    public func modifyAndCommit<Result>(_ body: (inout Value?) throws -> Result) async throws -> Result {
        while true {
            let attempt = try prepareModification(replacingUnreadable: false, body)
            guard attempt.changed else {
                try await storage.commitPendingWrites()
                return attempt.result
            }
            let ticket = takeWriteTicket()
            let replaced: Bool
            do {
                replaced = try await storage.replaceStoredValue(forKey: key, expecting: attempt.current, with: attempt.replacement, .granted)
            } catch {
                didWrite(nil, ticket: ticket)
                throw storageError(from: error, reading: false)
            }
            if replaced {
                // A compare-and-swap is durable when it succeeds (a store's requirement). Waiting
                // here for other writes would throw, if they failed, about a change that was made.
                didWrite(cacheEntry(afterWriting: attempt.replacement), ticket: ticket)
                return attempt.result
            }
            // Another writer got in first and nothing was written: try again from its value.
        }
    }
}
