import Stowage
import StowageJSON

/// Compare-and-swaps (behind `modify`): queued behind the writes before
/// them, run alone against the rows' revisions, answered within the
/// caller's operation timeout.
extension PostgresStoreBacking {
    /// A compare-and-swap in the queue, and what its caller waits with.
    struct SubmittedReplacement: Sendable {
        let reply: PendingReply<Bool>
        let deadline: ContinuousClock.Instant
        let gate: StatementGate
        let keys: [String]
    }

    /// Queues a compare-and-swap and waits for its answer, for the operation
    /// timeout from this call, all told. The caller sends it itself where it
    /// can (``startReplacementOnCallersThread(_:)``), else the worker does,
    /// giving the statement what is left of that time. A request the worker
    /// has not started by then is skipped, and one that got no connection by
    /// then never sends its statement (the deadline closes its gate): the
    /// error says nothing was written. One whose statement may have reached
    /// the database says the outcome is unknown.
    func replace(
        expected: [String: StoredValue?], replacements: [String: (value: StoredValue?, text: String?)], author: String?
    ) async throws(StorageError) -> Bool {
        let submitted = try submitReplacement(expected: expected, replacements: replacements, author: author)
        if startReplacementOnCallersThread(submitted.reply) { return try await submitted.reply.value() }
        return try await answer(to: submitted)
    }

    /// Queues a compare-and-swap; the deadline runs from now.
    /// - Throws: `StorageError` when the store has stopped.
    func submitReplacement(
        expected: [String: StoredValue?], replacements: [String: (value: StoredValue?, text: String?)], author: String?
    ) throws(StorageError) -> SubmittedReplacement {
        let submitted = SubmittedReplacement(
            reply: PendingReply<Bool>(), deadline: .now + options.operationTimeout, gate: StatementGate(), keys: replacements.keys.sorted())
        let queued = update { state -> Bool in
            guard state.phase != .stopped else { return false }
            state.queue.append(
                .replace(
                    .init(
                        expected: expected, replacements: replacements, reply: submitted.reply, deadline: submitted.deadline, gate: submitted.gate,
                        author: author ?? options.author)))
            return true
        }
        guard queued else { throw stoppedError(key: submitted.keys.count == 1 ? submitted.keys[0] : nil) }
        return submitted
    }

    /// Wakes the worker for a queued compare-and-swap and waits for its answer until the deadline.
    func answer(to submitted: SubmittedReplacement) async throws(StorageError) -> Bool {
        wake.yield()
        let keys = submitted.keys
        return try await submitted.reply.value(by: submitted.deadline, gate: submitted.gate) { [self] mayHaveBeenSent in
            let what = keys.count == 1 ? "its value" : "keys \(keys.joined(separator: ", "))"
            return mayHaveBeenSent
                ? unreachableError(
                    key: keys.first,
                    doing:
                        "got no answer to the compare and swap of \(what); whether it was applied is unknown until the store reads it again, which it does next"
                )
                : unreachableError(key: keys.first, doing: "could not compare and swap \(what); nothing was written")
        }
    }

    /// Runs a compare-and-swap against the rows' revisions; when a row had
    /// moved on, takes the keys' rows from the answer (one key) or reads
    /// them again (several), so the next try starts from their values.
    /// A caller's own run answers even if the store is stopping at once: its
    /// statement may have been sent, and it waits for no worker.
    func perform(_ replacement: State.Replacement, onCallersThread: Bool = false) async {
        guard replacement.reply.start() else {
            update { $0.removeFront() }
            return
        }
        let plan = update { state -> [(key: String, text: String?, expectedRevision: Int64)]? in
            for (key, value) in replacement.expected where state.committedValue(forKey: key) != value { return nil }
            var items = replacement.replacements.map { key, new in (key: key, text: new.text, expectedRevision: state.committed[key]?.revision ?? 0) }
            // A key that must hold a value but is not replaced is written back as it is, at its revision, so the check covers it.
            for (key, value) in replacement.expected where replacement.replacements[key] == nil {
                let text = try? value?.jsonText()
                items.append((key: key, text: text, expectedRevision: state.committed[key]?.revision ?? 0))
            }
            return items
        }
        guard let plan else {
            update { $0.removeFront() }
            replacement.reply.resolve(.success(false))
            return
        }
        let keys = Set(plan.map(\.key))
        // Its own notices come back before its answer: they wait for the answer, as for queued writes.
        // Keys they leave to read are the worker's: it looks for them after each step of its own,
        // and a caller's step wakes it when it ends with something to do (`endCallersStep`).
        update { $0.keysBeingReplaced.formUnion(keys) }
        defer {
            update { state in
                state.keysBeingReplaced.subtract(keys)
                state.settleNotices(forKeys: keys)
            }
        }
        do {
            let database = database
            let executor: any TaskExecutor = onCallersThread ? ImmediateExecutor.shared : StoreExecutor.shared
            let outcome = try await withStepConnection(within: replacement.deadline - .now, gate: replacement.gate, on: executor) {
                try await database.replace(plan, author: replacement.author, on: $0)
            }
            switch outcome {
            case .written(let revisions):
                let changed = update { state in
                    var changed: Set<String> = []
                    for (key, new) in replacement.replacements {
                        if let revision = revisions[key] { state.committed[key] = .init(value: new.value, revision: revision) }
                        if state.exposeCommittedValue(forKey: key) { changed.insert(key) }
                    }
                    state.removeFront()
                    state.connection = .connected
                    return changed
                }
                // When the caller already gave up waiting, Stowage will not tell the key's references: the store does.
                if !replacement.reply.resolve(.success(true)) { announce(changed) }
            case .movedOn(let current):
                let fresh: PostgresDatabase.LoadedRows
                if let current {
                    fresh = current
                } else {
                    // Several keys: a caller reads them by its own deadline, the worker within its timeout.
                    let timeout = onCallersThread ? replacement.deadline - .now : options.operationTimeout
                    do {
                        fresh = try await withStepConnection(within: timeout, on: executor) { try await database.load(keys: keys, on: $0) }
                    } catch {
                        notApplied(replacement, keys: keys, readFailure: error)
                        return
                    }
                }
                let changed = absorb(fresh, keys: keys)
                update { $0.removeFront() }
                announce(changed)
                // A row that is not JSON can not be compared with; answering `false` would make modify try forever.
                if let unreadable = fresh.unreadable.first(where: { $0.key.map(keys.contains) == true }) {
                    replacement.reply.resolve(.failure(unreadable))
                } else {
                    replacement.reply.resolve(.success(false))
                }
            }
        } catch {
            // The worker cancelled: the store is stopping at once; it answers the request, still queued, when it has stopped.
            guard onCallersThread || !Task.isCancelled else { return }
            let mayHaveBeenSent = DatabaseFailure.mayHaveBeenSent(error)
            let outcome =
                mayHaveBeenSent
                ? "Whether it was applied is unknown until the store reads the key\(keys.count == 1 ? "" : "s") again, which it does next."
                : "No connection was made, so nothing was written."
            let failure = StorageError(
                code: DatabaseFailure.isTransient(error) ? .timedOut : .storeFailure, key: keys.count == 1 ? keys.first : nil,
                reason: "\(name) could not compare and swap \(keys.count == 1 ? "its value" : "keys \(keys.sorted().joined(separator: ", "))"): "
                    + "\(database.explanation(of: error)). \(outcome)",
                underlyingError: DatabaseFailure.reportable(error))
            update { state in
                state.removeFront()
                if mayHaveBeenSent { state.queue.insert(.reload(keys: keys, reply: nil), at: 0) }
            }
            if DatabaseFailure.isTransient(error) { noteFailure(error, doing: "could not reach the database") }
            replacement.reply.resolve(.failure(failure))
        }
    }

    /// The database answered that a row had moved on, so nothing was
    /// written, but reading the rows' new values failed: the caller hears
    /// both, and the store reads the keys again before its next step.
    private func notApplied(_ replacement: State.Replacement, keys: Set<String>, readFailure error: any Error) {
        update { state in
            state.removeFront()
            if state.phase != .stopped { state.queue.insert(.reload(keys: keys, reply: nil), at: 0) }
        }
        if DatabaseFailure.isTransient(error) { noteFailure(error, doing: "could not read keys after a compare and swap") }
        replacement.reply.resolve(
            .failure(
                StorageError(
                    code: DatabaseFailure.isTransient(error) ? .timedOut : .storeFailure, key: keys.count == 1 ? keys.first : nil,
                    reason: "\(name) could not compare and swap keys \(keys.sorted().joined(separator: ", ")): a row had changed, so nothing was "
                        + "written, and reading the new values then failed: \(database.explanation(of: error)). The store reads them again next.",
                    underlyingError: DatabaseFailure.reportable(error))))
    }
}
