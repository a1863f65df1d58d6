import Logging
import PostgresNIO
public import ServiceLifecycle
import Stowage
import StowageHistory
import StowageJSON
import StowageLocking

/// A store whose values live in PostgreSQL, one truth for every process and
/// host that opens the same namespace.
///
/// **It runs as a service.** The store does its work (its connection pool,
/// listening for changes, committing writes, reading again after an outage)
/// only inside ``run()``, as postgres-nio's `PostgresClient` does: add it to
/// the server's `ServiceGroup`, which runs it and, on SIGTERM, shuts it down
/// gracefully: it then commits what is queued, for at most
/// ``Options/operationTimeout``, and reports what it could not write.
/// Cancelling `run()` stops it at once, and reports the writes left queued.
/// Before `run()` starts, reads give absent values, writes are queued (and
/// shown to reads) to be committed once it runs, and calls that wait for the
/// database wait for it, within their timeout, and then say that `run()` has
/// not started. After `run()` returns, reads give the last values the store
/// held and writes fail at once.
///
/// **Reads** never touch the network: they are served from the store's
/// cache, filled by a first load when it starts running. Until that load is
/// done, every key reads as absent (a wrapper gives its default); await
/// ``ready(timeout:)`` (``waitUntilReady(timeout:)`` in synchronous code)
/// to start from the database's values.
///
/// **Changes made elsewhere** (another store, an operator's `UPDATE` in
/// `psql`) reach the cache and the keys' observers within milliseconds: a
/// trigger notifies every change, and the store, listening on a connection
/// its process's running stores of the database share, reads the rows named. After
/// the listening connection drops, the store listens again, reads its
/// namespace in full, and announces the keys that changed. ``status`` and
/// ``cacheAge`` say whether changes reach it and how old its cache may be.
///
/// **Writes** (`set`, a wrapper's setter, `removeValue`) are written
/// behind: the cache takes the value at once, and the store's worker commits
/// queued writes in order, a run of them in one statement. A write is
/// durable once committed; ``flush()`` and
/// ``commitPendingWrites()`` (behind `setAndCommit` and `modifyAndCommit`)
/// return only then. While the database is unreachable, writes stay queued
/// (up to ``Options/maximumQueuedWrites``) and are tried again with growing
/// delays; `flush` fails with `.timedOut` after ``Options/operationTimeout``
/// and says so. A write the database refuses for good is reported, and reads
/// go back to what the database holds.
///
/// **`modify`** is a compare-and-swap on the row's revision in one
/// statement, so it is linearizable across processes and hosts: 4 processes
/// making 500 increments each end at exactly 2,000. It runs after every
/// write queued before it. The synchronous `modify` blocks its thread for
/// the round trip; async code uses `modifyAndCommit`, which does not. No
/// call deadlocks: the store's tasks run on a thread of their own, and a
/// blocking call made on a SwiftNIO event loop thread fails at once with an
/// error naming the async form.
///
/// **Values** are kept as the JSON text the JSON file store writes
/// (`StoredValue.jsonText()`), in a `text` column: exact from `Int64.min` to
/// `UInt64.max`, `-0.0` with its sign (which `jsonb` would lose), dates to
/// the millisecond, NUL characters escaped. NaN and infinity have no JSON
/// form and are refused with an error naming the key; so is a key with a NUL
/// character, which PostgreSQL text can not hold.
///
/// Stores with different namespaces share one table. The store's description
/// and its errors name the host, port and database, never the user's password.
public final class PostgresStore: UnderlyingStorage, Service, CustomStringConvertible, Sendable {
    /// Whether the store reaches its database.
    public enum ConnectionState: Sendable, Equatable {
        /// Opening: the first load has not succeeded yet.
        case connecting
        /// The last exchange with the database succeeded.
        case connected
        /// The last exchange failed; the store tries again and serves the last values it knew.
        case unreachable
    }

    /// What a store's connection state and cache are, as ``statusUpdates()`` reports them.
    public struct Status: Sendable, Equatable, CustomStringConvertible {
        /// Whether the store reaches its database.
        public var connection: ConnectionState
        /// Whether every change made in the database, by anyone, reaches the
        /// cache as it commits: the store listens for changes and has read
        /// its namespace in full since it (last) began to. While this is
        /// false, reads serve the last values the store knew (see ``PostgresStore/cacheAge``).
        public var receivesChanges: Bool

        public init(connection: ConnectionState, receivesChanges: Bool) {
            self.connection = connection
            self.receivesChanges = receivesChanges
        }

        public var description: String {
            "\(connection)\(receivesChanges ? ", receiving changes" : ", not receiving changes")"
        }
    }

    /// The compare-and-swap is the database's, atomic with every write.
    public static let replacesAtomically = true

    /// The namespace this store's keys live in; other namespaces in the same table are invisible to it.
    public let namespace: String
    public let options: Options
    /// `PostgresStore(host:port/database, schema …, namespace …)`, without credentials.
    public let description: String

    /// The same as ``description``: reports and events name the store by it, never with credentials.
    public var storeName: String { description }
    let backing: PostgresStoreBacking

    /// Makes a store over `namespace`; it connects and loads once ``run()``
    /// runs, and reads give absent values until then (see ``ready(timeout:)``).
    ///
    /// - Parameters:
    ///   - configuration: where and how to connect, TLS included; the store
    ///     runs a `PostgresClient` of its own with it (at most
    ///     ``Options/maximumConnections``), so that its connections carry its
    ///     `statement_timeout` and the application's queries never wait
    ///     behind its commits, nor its commits behind them.
    ///   - namespace: the part of the table this store sees.
    ///   - options: timeouts, the pool's size, the schema and how changes are pushed.
    /// - Throws: `StorageError` when the namespace or the schema name can not be used.
    public init(configuration: PostgresClient.Configuration, namespace: String = "default", options: Options = .init()) throws(StorageError) {
        // Fields set after the options' init have not been checked yet.
        let options = options.bounded
        guard !namespace.unicodeScalars.contains("\u{0}") else {
            throw StorageError(code: .storeFailure, reason: "the namespace contains a NUL character, which PostgreSQL text can not hold.")
        }
        let schema = try PostgresSchema(name: options.schema)
        let listenerConfiguration = configuration
        var configuration = configuration
        configuration.options.maximumConnections = options.maximumConnections
        // The server ends a statement that outlasts the operation timeout (one waiting on a lock, say):
        // the store stops waiting for it then, and must not have it commit later unseen.
        if !configuration.options.additionalStartupParameters.contains(where: { $0.0 == "statement_timeout" }) {
            configuration.options.additionalStartupParameters.append(("statement_timeout", "\(Self.milliseconds(options.operationTimeout))"))
        }
        // The history names the application of every change; a store's own are "stowage" unless the configuration says otherwise.
        if !configuration.options.additionalStartupParameters.contains(where: { $0.0 == "application_name" }) {
            configuration.options.additionalStartupParameters.append(("application_name", "stowage"))
        }
        let attempts = ConnectionAttempts()
        let logger = Logger(label: "stowage.postgres") { _ in ConnectionAttemptLogHandler(attempts: attempts) }
        let endpoint = configuration.unixSocketPath ?? "\(configuration.host ?? "?"):\(configuration.port ?? 5432)"
        self.namespace = namespace
        self.options = options
        description = "PostgresStore(\(endpoint)/\(configuration.database ?? configuration.username), schema \(schema.name), namespace \"\(namespace)\")"
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let database = PostgresDatabase(client: client, schema: schema, namespace: namespace, logger: logger, attempts: attempts)
        var listen: (@Sendable (ChangeListener.Subscriber) -> ChangeListener.Subscription)?
        if options.listensForChanges {
            let settings = ChangeListener.Settings(
                heartbeatInterval: options.heartbeatInterval, timeout: options.operationTimeout,
                initialRetryDelay: options.initialRetryDelay, maximumRetryDelay: options.maximumRetryDelay)
            let (identity, channel) = (ChangeListener.identity(of: listenerConfiguration, channel: schema.channel, settings: settings), schema.channel)
            listen = { subscriber in
                ChangeListener.subscribe(identity: identity, configuration: listenerConfiguration, channel: channel, settings: settings, subscriber: subscriber)
            }
        }
        backing = PostgresStoreBacking(database: database, options: options, name: description, listen: listen)
        backing.announceChanges { [weak self] keys in self?.announceChanges(forKeys: keys) }
    }

    /// Runs the store: its connection pool, its share of the listening
    /// connection, its resynchronization timer and the worker that commits
    /// writes, until a graceful shutdown or cancellation.
    ///
    /// On a graceful shutdown (a `ServiceGroup`'s, on SIGTERM) the store
    /// stops listening, commits what is queued, for at most
    /// ``Options/operationTimeout``, and returns; cancellation returns at
    /// once. Either way, writes it could not commit are reported to
    /// `StowageReport.handler` with their keys (those whose statement went
    /// out unanswered are said to be possibly written), and the calls still
    /// waiting fail. A store runs once.
    /// - Throws: `StorageError` when the store runs already, or ran before.
    public func run() async throws {
        try await backing.run()
    }

    // MARK: State

    /// Whether the first load is done, so reads give the database's values.
    public var isReady: Bool { backing.state.withLock { $0.isReady } }

    /// Whether the store reaches its database now.
    public var connectionState: ConnectionState { backing.state.withLock { $0.connection } }

    /// The last failure to reach or write the database, until the next success.
    public var lastError: StorageError? { backing.state.withLock { $0.lastError } }

    /// The store's connection state and whether changes reach it, at once.
    public var status: Status { backing.state.withLock { $0.status } }

    /// The current ``status``, then each change of it, until the store stops.
    public func statusUpdates() -> AsyncStream<Status> {
        backing.statusUpdates()
    }

    /// How long ago the cache was last known to match the database: zero
    /// while it receives changes (``Status/receivesChanges``); otherwise the
    /// time since it stopped receiving them, or since its last full read;
    /// `nil` before the first load.
    public var cacheAge: Duration? {
        backing.state.withLock { $0.cacheAge(now: .now) }
    }

    /// How many writes are queued and not yet committed.
    public var queuedWriteCount: Int { backing.state.withLock { $0.queuedWriteCount } }

    /// Returns once the first load is done.
    /// - Throws: `StorageError` (`.timedOut`) after `timeout` (the operation
    ///   timeout when `nil`), with the last failure's explanation.
    public func ready(timeout: Duration? = nil) async throws(StorageError) {
        try await backing.ready(timeout: timeout ?? options.operationTimeout)
    }

    /// ``ready(timeout:)`` for synchronous code; it blocks the calling thread.
    /// - Throws: as `ready(timeout:)`, or at once on a SwiftNIO event loop thread.
    public func waitUntilReady(timeout: Duration? = nil) throws(StorageError) {
        try waitSynchronously(for: description, asyncForm: "try await store.ready(timeout:)") { [backing, options] () async throws(StorageError) in
            try await backing.ready(timeout: timeout ?? options.operationTimeout)
        }
    }

    /// Returns once every write made before the call is committed.
    /// - Throws: `StorageError` (`.timedOut`) when the database did not take
    ///   them within the operation timeout (they stay queued), or the error
    ///   of a write it refused.
    public func flush() throws(StorageError) {
        try waitSynchronously(for: description, asyncForm: "try await store.commitPendingWrites()") { [backing] () async throws(StorageError) in
            try await backing.commitQueuedWrites()
        }
    }

    public func commitPendingWrites() async throws {
        try await backing.commitQueuedWrites()
    }

    /// Reads every key of the namespace from the database again and
    /// announces those whose value changed (removals included), for changes
    /// made by others.
    public func reload() async throws(StorageError) {
        try await backing.reload()
    }

    /// ``reload()`` for synchronous code; it blocks the calling thread.
    public func reloadSynchronously() throws(StorageError) {
        try waitSynchronously(for: description, asyncForm: "try await store.reload()") { [backing] () async throws(StorageError) in
            try await backing.reload()
        }
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        backing.state.withLock { $0.visible[key] }
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        let text = try text(of: value, forKey: key)
        try backing.enqueueWrite(key: key, value: value, text: text)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try check(key)
        try backing.enqueueWrite(key: key, value: nil, text: nil)
    }

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        try replaceStoredValues(expecting: [key: expected], with: [key: newValue], access)
    }

    public func replaceStoredValue(
        forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess
    ) async throws -> Bool {
        try await backing.replace(
            expected: [key: expected], replacements: [key: (newValue, try newValue.map { try text(of: $0, forKey: key) })], author: ChangeAuthor.name)
    }

    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        var prepared: [String: (value: StoredValue?, text: String?)] = [:]
        for (key, value) in replacements {
            try check(key)
            prepared[key] = (value, try value.map { try text(of: $0, forKey: key) })
        }
        let key = replacements.count == 1 ? replacements.keys.first : nil
        let author = ChangeAuthor.name
        return try waitSynchronously(for: description, asyncForm: "try await reference.modifyAndCommit { … }", key: key) {
            [backing, prepared] () async throws(StorageError) in
            try await backing.replace(expected: expected, replacements: prepared, author: author)
        }
    }

    /// Every key the cache holds, with its value as reads give it.
    public func storedEntries(_ access: BackendAccess) -> [String: StoredValue] {
        backing.state.withLock { $0.visible.compactMapValues { $0 } }
    }

    /// `duration` in whole milliseconds, at least 1.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    // MARK: Values and keys

    /// The most bytes a namespace and a key may take together: the primary
    /// key's index holds both, and PostgreSQL refuses an index entry over
    /// 2,704 bytes, which would make the database refuse the write.
    public static let maximumKeyBytes = 2_600

    /// `value` as JSON text, or an error naming the key.
    func text(of value: StoredValue, forKey key: String) throws(StorageError) -> String {
        try check(key)
        do {
            return try value.jsonText()
        } catch {
            throw StorageError(
                code: .encodingFailed, key: key, reason: "PostgresStore keeps values as JSON text, which can not hold this value: \(error.reason)",
                underlyingError: error)
        }
    }

    /// Refuses a key PostgreSQL text or its index can not hold, before it is queued.
    func check(_ key: String) throws(StorageError) {
        if key.unicodeScalars.contains("\u{0}") {
            throw StorageError(
                code: .storeFailure, key: key, reason: "the key contains a NUL character (U+0000), which PostgreSQL text can not hold; nothing was written.")
        }
        let bytes = PostgresDatabase.databaseKey(key).utf8.count + namespace.utf8.count
        if bytes > Self.maximumKeyBytes {
            throw StorageError(
                code: .storeFailure, key: String(key.prefix(64)) + "…",
                reason:
                    "the key and the namespace take \(bytes) bytes of UTF-8, more than the \(Self.maximumKeyBytes) PostgreSQL's index can hold; nothing was written."
            )
        }
    }
}

/// The property wrapper over a ``PostgresStore``: `@PostgresStorage("key", in: store) var value = 0`.
public typealias PostgresStorage<Value: Storable> = Stored<PostgresStore, Value>
