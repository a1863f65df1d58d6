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
        let layout = options.keyLayout
        let (result, changed) = try backing.withFileLock { () throws(StorageError) -> (Swift.Result<Result, any Error>, [String]) in
            var changed = try backing.reload(mode: .locked)
            while true {
                let snapshot = backing.state.withLock { $0.visible }
                var transaction = JSONFileTransaction(snapshot: snapshot, backing: backing)
                let result: Result
                do {
                    result = try body(&transaction)
                } catch {
                    return (.failure(error), changed)
                }
                let commit = backing.state.withLock { state -> Swift.Result<(changed: [String], recorded: RecordedChanges)?, StorageError> in
                    // Another thread of this process changed what the body read: run it again.
                    for (key, seen) in transaction.reads where layout.value(forKey: key, in: state.visible) != seen {
                        return .success(nil)
                    }
                    if let reason = state.readOnlyReason {
                        return .failure(JSONFileBacking.readOnlyError(key: transaction.writes.first?.key, reason: reason))
                    }
                    var visible = state.visible
                    for (key, value) in transaction.writes {
                        do throws(StorageError) {
                            try layout.apply(value, forKey: key, to: &visible)
                        } catch {
                            return .failure(error)
                        }
                    }
                    let recording = state.changesAbout(toBeRecordedFor: transaction.writes.map(\.key))
                    for (key, value) in transaction.writes { state.recordPending(value, forKey: key) }
                    let changed = layout.changedKeys(from: state.visible, to: visible)
                    state.visible = visible
                    backing.discardCachedValues(changed)
                    return .success((changed, recording.ended(at: state)))
                }
                guard let (written, recorded) = try commit.get() else { continue }
                changed += written
                if !transaction.writes.isEmpty {
                    // A failed write takes the transaction back; readers may have seen it, so its keys are announced all the same.
                    do throws(StorageError) {
                        try backing.writeAtomicChangeUnderLock(recorded)
                    } catch {
                        // Retried under the new lock file by `withFileLock`: the body runs again.
                        if error.lockFileWasReplaced { throw error }
                        backing.scheduleRetry()
                        return (.failure(error), changed)
                    }
                }
                return (.success(result), changed)
            }
        }
        backing.announce(changed)
        return try result.get()
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
