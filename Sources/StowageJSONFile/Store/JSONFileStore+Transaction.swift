public import Stowage
import StowageLocking

extension JSONFileStore {
    /// Several reads and writes that take effect together, atomically with
    /// respect to every other writer of the file, in this process or another.
    ///
    /// The body runs holding the file's cross-process lock, after the file is
    /// reread; its writes are applied together and written to disk before
    /// `transaction` returns; readers see them only once the file holds them.
    /// If that write fails, nothing of them is applied or left pending, and
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
            guard try isStillValid(transaction) else { continue }
            guard !transaction.writes.isEmpty else { return TransactionOutcome(changed: changed, result: .success(result)) }
            do throws(StorageError) {
                changed += try backing.writeStagedChangeUnderLock(transaction.writes, isCompareAndSwap: false)
            } catch  where !error.lockFileWasReplaced {
                // Nothing of the transaction was applied or stays pending.
                backing.scheduleRetry(after: error)
                return TransactionOutcome(changed: changed, result: .failure(error))
            }
            // A replaced lock file was rethrown above: `withFileLock` runs the body again under the new one.
            return TransactionOutcome(changed: changed, result: .success(result))
        }
    }

    /// Whether the transaction may be written: `false` when another thread
    /// of this process changed a key the body read while it ran, so the body
    /// must run again on the new values. Its writes become visible only once
    /// the file holds them (``JSONFileBacking/writeStagedChangeUnderLock(_:isCompareAndSwap:)``).
    private func isStillValid(_ transaction: JSONFileTransaction) throws(StorageError) -> Bool {
        let layout = options.keyLayout
        return try backing.state.withLock { state throws(StorageError) -> Bool in
            for (key, seen) in transaction.reads where layout.value(forKey: key, in: state.visible) != seen { return false }
            if let reason = state.readOnlyReason {
                throw JSONFileBacking.readOnlyError(key: transaction.writes.first?.key, reason: reason)
            }
            try state.validate(transaction.writes, layout: layout)
            return true
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
