import PostgresNIO
import Stowage

/// What a store holds between its callers and its worker, behind one lock
/// (the backing's `state`): the only lock of a store's own.
///
/// `visible` is what reads return: the committed value of each key, with
/// the writes still queued for it laid over. Steps (the worker's, or a caller's) take work from
/// the front of `queue`, in order, so a compare-and-swap runs after every
/// write queued before it and before every write queued after it.
struct PostgresStoreState {
    /// The value of a key as the database last told this store, with the row's revision.
    struct CommittedEntry: Equatable {
        /// `nil` when the row records a removal.
        var value: StoredValue?
        var revision: Int64
    }

    /// A write queued by a setter, committed in a batch by the worker or by a caller waiting for it.
    struct PendingWrite {
        let number: UInt64
        let key: String
        /// `nil` removes the key.
        let value: StoredValue?
        /// `value` as JSON text, made when queued so an error reaches the setter.
        let text: String?
        /// Who the history records as its author: the writer's ``ChangeAuthor``, or the store's.
        let author: String?
    }

    /// A compare-and-swap of one or more keys, answered by the worker or by its caller.
    struct Replacement {
        let expected: [String: StoredValue?]
        let replacements: [String: (value: StoredValue?, text: String?)]
        let reply: PendingReply<Bool>
        /// The caller's: the operation timeout from its call. The statement gets what is left of it.
        let deadline: ContinuousClock.Instant
        /// Closed by whichever comes first, the connection or the caller's deadline.
        let gate: StatementGate
        /// Who the history records as its author, taken when the call was made.
        let author: String?
    }

    enum Operation {
        case write(PendingWrite)
        case replace(Replacement)
        /// Reads the namespace again (or only `keys`) and announces what changed.
        case reload(keys: Set<String>?, reply: PendingReply<Void>?)
    }

    var committed: [String: CommittedEntry] = [:]
    var visible: [String: StoredValue] = [:]
    var queuedWritesPerKey: [String: Int] = [:]
    /// The sum of `queuedWritesPerKey`, kept so a write checks the queue's bound without adding it up.
    var queuedWriteCount = 0
    var queue: [Operation] = []
    var nextWriteNumber: UInt64 = 1
    /// Every write numbered up to this one is committed, or was refused and reported.
    var settledThrough: UInt64 = 0
    var commitWaiters: [(through: UInt64, reply: PendingReply<Void>)] = []
    var readyWaiters: [PendingReply<Void>] = []
    var isReady = false
    var connection: PostgresStore.ConnectionState = .connecting
    var lastError: StorageError?
    /// When the store reported losing the database, until a full read makes it current again.
    var disconnectedSince: ContinuousClock.Instant?

    /// A full read succeeded: ends the outage, if one was reported.
    /// - Returns: how long it lasted, or `nil` when none was reported.
    mutating func endDisconnection() -> Duration? {
        defer { disconnectedSince = nil }
        return disconnectedSince.map { ContinuousClock.now - $0 }
    }
    /// Where the store is in its life: before, during or after `run()`.
    var phase = PostgresStoreBacking.Phase.notStarted
    /// Given when a caller's step ends, to a `run()` that waits for it before the store stops.
    var stepEndedWaiter: PendingReply<Void>?
    /// Whether a step (the queue's front, or a read) is being performed: by
    /// the worker, or by a caller that commits its own writes or runs its
    /// own compare-and-swap. One at a time, so steps keep the queue's order.
    var stepInProgress = false
    /// The connection the store holds for its steps while it runs (see
    /// `+HeldConnection`); `nil` while it has none, or gives it back.
    var heldConnection: PostgresConnection?
    /// Whether a step is using ``heldConnection``.
    var heldConnectionInUse = false
    /// Given when the step using the held connection is done with it, to the holder waiting to give it back.
    var heldConnectionFreed: PendingReply<Void>?
    /// Whether the holder is to give the connection back: it closed, or the store stops.
    var heldConnectionRecalled = false
    /// Wakes the holder between its keep-alive questions, when the connection is recalled.
    var heldConnectionWake: FirstOutcome<Void>?
    /// When a step last gave the held connection back (or it was lent): the
    /// keep-alive asks its question only once it has been idle that long.
    var heldConnectionLastUsed = ContinuousClock.now
    /// Failed tries to commit the writes at the queue's front, by the worker
    /// or a caller, since the last commit; reported when they land.
    var failedCommitAttempts = 0
    /// Whether the worker's wake for queued writes is scheduled already.
    var workerWakeScheduled = false
    /// The number of the last write of any batch whose statement may have
    /// reached the database: being sent, or sent and left unanswered. A
    /// write still queued when the store stops, up to it, may have been
    /// committed after all, and the store says so.
    var possiblySentThrough: UInt64 = 0
    /// The store's place among its database's listeners, while it runs.
    var subscription: ChangeListener.Subscription?
    /// Tells the store's references and observers of changed keys; `nil` once it stopped.
    var announce: (@Sendable (Set<String>) -> Void)?

    // Pushed changes (see `ChangeListener`).

    /// Whether the shared listener has `LISTEN` in place.
    var isListening = false
    /// Counts the listener's (re)connections, so a full read knows whether it began after the latest.
    var listenGeneration: UInt64 = 0
    /// Whether the cache is complete and every change reaches it: listening,
    /// and read in full since `LISTEN` was (last) put in place.
    var receivesChanges = false
    /// When the cache was last known to match the database, while it does not receive changes.
    var currentAsOf: ContinuousClock.Instant?
    /// Whether the first load has begun: a notice that comes earlier is covered by it.
    var hasStartedLoading = false
    /// Keys notices named, for the worker to read before its next step.
    var keysToRefresh: Set<String> = []
    /// Whether the worker must read the whole namespace before its next step.
    var resynchronizationRequested = false
    /// Whether the tables send notifications: false when they lack the triggers and this role may not add them.
    var tablesNotify = true
    /// After a failed read, when the next may run; writes take their turn meanwhile.
    var readsPausedUntil: ContinuousClock.Instant?
    /// The pause after the next failed read; `nil` after a success.
    var readRetryDelay: Duration?
    /// Keys whose compare-and-swap is running: like keys with
    /// writes queued, their notices wait for its outcome.
    var keysBeingReplaced: Set<String> = []
    /// The newest revision notices named for keys with writes queued: the
    /// store's own writes come back as notices before it knows their
    /// revision, so the key is read only if its commit turns out older.
    var noticesDuringWrites: [String: Int64] = [:]
    /// Those who watch the store's status.
    var statusWatchers: [UInt64: AsyncStream<PostgresStore.Status>.Continuation] = [:]
    var nextWatcherID: UInt64 = 0

    /// Takes the step just performed off the queue's front: `count`
    /// operations, or what is left once a stopped store emptied the queue
    /// under a step it no longer waited for.
    mutating func removeFront(_ count: Int = 1) {
        queue.removeFirst(min(count, queue.count))
    }

    /// The run of writes at the queue's front, at most `limit`: one statement's batch.
    func writesAtFront(upTo limit: Int) -> [PendingWrite] {
        var writes: [PendingWrite] = []
        for operation in queue.prefix(limit) {
            guard case .write(let write) = operation else { break }
            writes.append(write)
        }
        return writes
    }

    /// Whether a notice about `key` must wait for the store's own write of it to land.
    func isWriting(_ key: String) -> Bool {
        queuedWritesPerKey[key, default: 0] > 0 || keysBeingReplaced.contains(key)
    }

    /// Once the store's writes of `keys` have landed, reads those a notice
    /// named at a newer revision than the store's own commit.
    mutating func settleNotices(forKeys keys: some Sequence<String>) {
        for key in keys where !isWriting(key) {
            if let noticed = noticesDuringWrites.removeValue(forKey: key), committed[key]?.revision ?? 0 < noticed {
                keysToRefresh.insert(key)
            }
        }
    }

    /// Whether a full read that began at listener generation `generation` leaves the cache receiving every change.
    func receivesChanges(afterReadAt generation: UInt64) -> Bool {
        tablesNotify && isListening && listenGeneration == generation
    }

    var status: PostgresStore.Status {
        PostgresStore.Status(connection: connection, receivesChanges: receivesChanges)
    }

    /// How long ago the cache was last known to match the database; zero while it receives changes.
    func cacheAge(now: ContinuousClock.Instant) -> Duration? {
        if receivesChanges { return .zero }
        return currentAsOf.map { now - $0 }
    }

    /// The value a read gives once the queued writes of `key` are done with.
    func committedValue(forKey key: String) -> StoredValue? {
        committed[key]?.value
    }

    /// Sets `visible[key]` from `committed` when no write is queued for it.
    /// - Returns: whether the visible value changed.
    mutating func exposeCommittedValue(forKey key: String) -> Bool {
        guard queuedWritesPerKey[key, default: 0] == 0 else { return false }
        let value = committedValue(forKey: key)
        guard visible[key] != value else { return false }
        visible[key] = value
        return true
    }

    /// Records rows read from the database (`nil`: no row) and exposes them.
    /// - Returns: the keys whose visible value changed.
    mutating func absorb(_ rows: [String: CommittedEntry?]) -> Set<String> {
        var changed: Set<String> = []
        for (key, row) in rows {
            // Taken as it is, even with a lower revision than held: reads and commits run one after
            // another as steps, so a row read is never older than one it committed, and a lower
            // revision means the database's went back (a restored backup, a failover), which the
            // store must follow or a modify would retry against a revision that no longer exists.
            if let row {
                committed[key] = row
            } else {
                committed[key] = nil
            }
            if exposeCommittedValue(forKey: key) { changed.insert(key) }
        }
        return changed
    }

    /// Records rows read because a notice named them, each only if it is
    /// newer than what the store holds (`nil`: the row was deleted).
    /// - Returns: the keys whose visible value changed.
    mutating func absorbNewer(_ rows: [String: CommittedEntry?]) -> Set<String> {
        var changed: Set<String> = []
        for (key, row) in rows {
            if let row, let held = committed[key], held.revision >= row.revision { continue }
            committed[key] = row
            if exposeCommittedValue(forKey: key) { changed.insert(key) }
        }
        return changed
    }

    /// Marks writes up to `number` settled and takes the commit waiters that
    /// were waiting for them.
    mutating func settle(through number: UInt64) -> [PendingReply<Void>] {
        settled(through: number, failingFrom: nil).succeeded
    }

    /// As ``settle(through:)``, when writes from `firstRefused` on were
    /// refused: every waiter whose writes reach that far fails, those
    /// waiting for later writes too, since the writes they wait for include it.
    mutating func settled(through number: UInt64, failingFrom firstRefused: UInt64?) -> (succeeded: [PendingReply<Void>], failed: [PendingReply<Void>]) {
        let failed = firstRefused.map { first in commitWaiters.filter { $0.through >= first }.map(\.reply) } ?? []
        if let first = firstRefused { commitWaiters.removeAll { $0.through >= first } }
        return (settleWaiters(through: number), failed)
    }

    private mutating func settleWaiters(through number: UInt64) -> [PendingReply<Void>] {
        settledThrough = max(settledThrough, number)
        let done = commitWaiters.filter { $0.through <= settledThrough }
        commitWaiters.removeAll { $0.through <= settledThrough }
        return done.map(\.reply)
    }
}
