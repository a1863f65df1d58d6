import Dispatch
import Stowage
import StowageLocking

/// What a store holds and does for its callers: the cache, the queue, and
/// the worker that serves the queue while the store runs.
///
/// Its concerns live one per file: running and stopping
/// (`+Run`), the worker's loop (`+Worker`), queued writes and their commits
/// (`+Commits`), compare-and-swaps (`+CompareAndSwap`), the connection its
/// steps run on (`+HeldConnection`), the steps callers take themselves
/// (`+CallersSteps`), loading and readiness (`+Loading`), what the listener tells it and the reads that
/// follow (`+Listening`), and reports (`+Reports`). All of them share one
/// lock, `state`'s.
final class PostgresStoreBacking: Sendable {
    typealias State = PostgresStoreState

    let database: PostgresDatabase
    let options: PostgresStore.Options
    /// The store as messages name it, without credentials.
    let name: String
    /// Everything that changes, behind its one lock (see ``PostgresStoreState``).
    let state = Locked(State())
    /// Subscribes the store to its database's listener while it runs; `nil` when it does not listen.
    let listen: (@Sendable (ChangeListener.Subscriber) -> ChangeListener.Subscription)?
    /// Each `yield` asks the worker to look at the queue and the state again.
    let wakeups: AsyncStream<Void>
    let wake: AsyncStream<Void>.Continuation
    /// Reports and announcements of every store of the process run here, in
    /// order, never on the executor, so an observer may call the store's
    /// blocking API. One queue, not one per store: when a change reaches a
    /// process's stores together, their observers run in one wake-up of one
    /// thread, not one each. An observer that takes long delays the others'.
    var announcements: DispatchQueue { Self.announcements }
    private static let announcements = DispatchQueue(label: "Stowage PostgreSQL announcements")
    /// Status changes reach their watchers from here, in the order they happened.
    let statusDelivery = DispatchQueue(label: "Stowage PostgreSQL status")
    /// Resolved by the listener's first word, so the first load comes after `LISTEN` where it can.
    let listenerSettled = PendingReply<Void>()
    /// Resolved once the first load is done, or the store stops: the holder
    /// then leases the connection the load used, so holding one costs none more.
    let firstLoadDone = PendingReply<Void>()
    /// Resolved when the store first holds a connection for its steps (tests wait for it).
    let connectionFirstHeld = PendingReply<Void>()

    init(
        database: PostgresDatabase, options: PostgresStore.Options, name: String,
        listen: (@Sendable (ChangeListener.Subscriber) -> ChangeListener.Subscription)?
    ) {
        self.database = database
        self.options = options
        self.name = name
        self.listen = listen
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        database.attempts.onFailure { [weak self] explanation in
            self?.noteFailure(reason: "could not connect to the database: \(explanation)")
        }
    }

    /// Sets how the store tells its references and observers of changed keys.
    func announceChanges(with announce: @escaping @Sendable (Set<String>) -> Void) {
        state.withLock { $0.announce = announce }
    }

    /// Runs `body` on the state under its lock, and tells the status's
    /// watchers when it changed: queued under the lock, so in order, and
    /// yielded after it, from the status queue.
    @discardableResult
    func update<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, endsOutage) = state.withLock { state in
            let before = state.status
            let result = body(&state)
            let after = state.status
            if after != before, !state.statusWatchers.isEmpty {
                let watchers = Array(state.statusWatchers.values)
                statusDelivery.async { for watcher in watchers { watcher.yield(after) } }
            }
            // Any exchange that succeeds during a reported outage asks for the
            // full read that ends it, and its `resynchronized` event.
            let endsOutage = state.connection == .connected && state.disconnectedSince != nil && !state.resynchronizationRequested
            if endsOutage { state.resynchronizationRequested = true }
            return (result, endsOutage)
        }
        if endsOutage { wake.yield() }
        return result
    }

    /// The current status, then each change, until the store stops.
    func statusUpdates() -> AsyncStream<PostgresStore.Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: PostgresStore.Status.self)
        let id = update { state in
            state.nextWatcherID += 1
            let (status, hasStopped) = (state.status, state.phase == .stopped)
            if !hasStopped { state.statusWatchers[state.nextWatcherID] = continuation }
            statusDelivery.async {
                continuation.yield(status)
                if hasStopped { continuation.finish() }
            }
            return state.nextWatcherID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.statusWatchers.removeValue(forKey: id) }
        }
        return stream
    }
}
