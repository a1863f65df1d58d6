public import Stowage

extension JSONFileStore {
    /// Several reads and writes that take effect together, atomically with
    /// respect to every other writer of the file, in this process or another.
    ///
    /// The body runs holding the file's cross-process lock, after the file is
    /// reread; its writes are applied together and written to disk before
    /// `transaction` returns. If that write fails, they are taken back and
    /// `transaction` throws. If a thread of this process changed a key the
    /// body read while it ran, the body runs again on the new values, so keep
    /// it free of side effects. Inside the body use only the transaction: the
    /// store's own `flush`, `modify` or `transaction` would wait for the lock
    /// the body holds, and fail instead.
    ///
    /// ```swift
    /// try store.transaction { transaction in
    ///     let balance = try transaction.value(forKey: "balance", as: Int.self) ?? 0
    ///     try transaction.set(balance - 10, forKey: "balance")
    ///     try transaction.set(10, forKey: "spent")
    /// }
    /// ```
    @discardableResult
    public func transaction<Result>(_ body: (inout JSONFileTransaction) throws -> Result) throws -> Result {
        let outcome = try backing.withFileLock { () throws(StorageError) in try runHoldingFileLock(body) }
        backing.announce(outcome.changed)
        return try outcome.result.get()
    }

    /// What a transaction did under the lock: the keys it changed, announced
    /// whatever happened (readers may have seen them), and the body's result
    /// or the error that ended it.
    private struct TransactionOutcome<Result> {
        var changed: [String]
        var result: Swift.Result<Result, any Error>
    }

    /// Rereads the file, then runs the body until it commits or fails.
    private func runHoldingFileLock<Result>(_ body: (inout JSONFileTransaction) throws -> Result) throws(StorageError) -> TransactionOutcome<Result> {
        var changed = try backing.reload(mode: .locked)
        while true {
            var transaction = JSONFileTransaction(snapshot: backing.state.withLock { $0.visible }, backing: backing)
            let result: Result
            do {
                result = try body(&transaction)
            } catch {
                return TransactionOutcome(changed: changed, result: .failure(error))
            }
            guard let commit = try commit(transaction) else { continue }
            changed += commit.changed
            guard !transaction.writes.isEmpty else { return TransactionOutcome(changed: changed, result: .success(result)) }
            do throws(StorageError) {
                try backing.writeAtomicChangeUnderLock(commit.recorded)
            } catch where !error.lockFileWasReplaced {
                // The failed write took the transaction back; it stays pending for the next write.
                backing.scheduleRetry()
                return TransactionOutcome(changed: changed, result: .failure(error))
            }
            // A replaced lock file was rethrown above: `withFileLock` runs the body again under the new one.
            return TransactionOutcome(changed: changed, result: .success(result))
        }
    }

    /// Applies the transaction's writes to the store's state, or returns
    /// `nil` when another thread of this process changed a key the body read
    /// while it ran, so the body must run again on the new values.
    private func commit(_ transaction: JSONFileTransaction) throws(StorageError) -> (changed: [String], recorded: RecordedChanges)? {
        let layout = options.keyLayout
        return try backing.state.withLock { state throws(StorageError) -> (changed: [String], recorded: RecordedChanges)? in
            for (key, seen) in transaction.reads where layout.value(forKey: key, in: state.visible) != seen { return nil }
            if let reason = state.readOnlyReason {
                throw JSONFileBacking.readOnlyError(key: transaction.writes.first?.key, reason: reason)
            }
            var visible = state.visible
            for (key, value) in transaction.writes { try layout.apply(value, forKey: key, to: &visible) }
            let recording = state.changesAbout(toBeRecordedFor: transaction.writes.map(\.key))
            for (key, value) in transaction.writes { state.recordPending(value, forKey: key) }
            let changed = layout.changedKeys(from: state.visible, to: visible)
            state.visible = visible
            backing.discardCachedValues(changed)
            return (changed, recording.ended(at: state))
        }
    }
}

/// The view of the store a ``JSONFileStore/transaction(_:)`` body reads and writes.
public struct JSONFileTransaction: Sendable {
    private var values: [String: StoredValue]
    private let backing: JSONFileBacking
    private var layout: JSONFileStore.KeyLayout { backing.options.keyLayout }
    /// What the body saw of each key it read, checked again at commit.
    private(set) var reads: [String: StoredValue?] = [:]
    /// The writes in order; `nil` removes.
    private(set) var writes: [(key: String, value: StoredValue?)] = []

    init(snapshot: [String: StoredValue], backing: JSONFileBacking) {
        values = snapshot
        self.backing = backing
    }

    /// The value for `key` as the transaction sees it, its own writes included.
    private mutating func storedValue(forKey key: String) -> StoredValue? {
        let value = layout.value(forKey: key, in: values)
        if reads[key] == nil, !writes.contains(where: { $0.key == key }) { reads[key] = .some(value) }
        return value
    }

    /// The value for `key` read as `Value`, or `nil` when absent.
    public mutating func value<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = storedValue(forKey: key), stored != .null else { return nil }
        do {
            return try Value(storedValue: stored)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .typeMismatch, reason: "could not read the value as \(Value.self).")
        }
    }

    /// Sets `key` to `value` when the transaction commits.
    public mutating func set<Value: Storable>(_ value: Value, forKey key: String) throws {
        let stored: StoredValue
        do {
            stored = try value.storedValue()
        } catch {
            throw StorageError.wrapping(error, key: key, code: .encodingFailed, reason: "could not encode the value.")
        }
        try setStoredValue(stored == .null ? nil : stored, forKey: key)
    }

    /// Removes `key` when the transaction commits.
    public mutating func removeValue(forKey key: String) throws {
        try setStoredValue(nil, forKey: key)
    }

    private mutating func setStoredValue(_ value: StoredValue?, forKey key: String) throws {
        let normalized = try backing.normalizedForFile(value, forKey: key)
        try layout.apply(normalized, forKey: key, to: &values)
        writes.append((key, normalized))
    }
}
