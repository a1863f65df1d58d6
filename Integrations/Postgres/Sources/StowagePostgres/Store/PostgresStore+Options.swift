extension PostgresStore {
    /// How a store uses its database.
    ///
    /// Each bound a property states holds whether the value came through
    /// `init` or was set afterwards: the store applies them when it opens.
    public struct Options: Sendable {
        /// The PostgreSQL schema holding the store's tables (created when
        /// missing): a plain lowercase identifier. Stores with different
        /// namespaces share its tables.
        public var schema: String
        /// How long a call that waits on the database (a compare-and-swap, a
        /// commit, a reload, readiness) waits before it fails with
        /// `.timedOut`. Writes already queued stay queued: see ``PostgresStore``.
        /// At least 1 ms.
        public var operationTimeout: Duration
        /// The first wait before the store tries an unreachable database
        /// again; it doubles after each failure, with jitter, up to ``maximumRetryDelay``.
        /// At least 1 ms.
        public var initialRetryDelay: Duration
        /// The longest wait between two tries; at least ``initialRetryDelay``.
        public var maximumRetryDelay: Duration
        /// The most keys one commit writes; more pending writes go in several. At least 1.
        public var maximumBatchSize: Int
        /// How many connections the store's pool may open: at least 2, one
        /// held for the store's statements and one for everything else.
        public var maximumConnections: Int
        /// The most writes the store keeps queued for the database, so that
        /// an outage can not grow the process's memory without bound. A write
        /// beyond it is refused at once, with an error naming its key (a
        /// wrapper reports it to `StowageReport.handler`); the queued writes
        /// are kept and tried again. At least 1.
        public var maximumQueuedWrites: Int
        /// Whether the store listens for changes (`LISTEN`), so that every
        /// change made in the database reaches it as it commits. Turn it off
        /// only behind a pooler that can not hold a listening session, such
        /// as PgBouncer in transaction mode: changes made by others then
        /// arrive with ``resynchronizationInterval`` or ``PostgresStore/reload()``.
        public var listensForChanges: Bool
        /// How often the store reads its whole namespace again, as a safety
        /// net for changes it could have missed; `nil`: never on its own.
        /// At least 10 ms.
        public var resynchronizationInterval: Duration?
        /// How often the listening connection, and the connection the store
        /// holds for its statements once it has been idle this long, are
        /// asked a question, so that one gone silent without closing (a
        /// network that drops packets) is found within this and
        /// ``operationTimeout``, and replaced. At least 10 ms.
        public var heartbeatInterval: Duration
        /// Who the history records as the author of this store's writes when
        /// the writer names none (`ChangeAuthor`): a service's name, say.
        /// `nil`: the history has only the connection's role and `application_name`.
        public var author: String?
        /// The keys whose values are secret, as patterns where `*` stands for
        /// any text (`"database-password"`, `"secrets.*"`): the history
        /// records that they changed, never their values, and descriptions,
        /// snapshots and the admin page redact them. The store adds them to
        /// the table the history's trigger reads (`secret_keys`), and never
        /// removes one there: a server of an older configuration can not make
        /// a secret public again.
        public var secretKeys: [String]
        /// How long the history keeps entries of this store's namespace.
        public var historyRetention: HistoryRetention
        /// How often the store prunes the history to ``historyRetention``
        /// while it runs, the first time one interval after it starts;
        /// ``PostgresStore/pruneHistory()`` prunes at once. At least 10 ms.
        public var historyPruningInterval: Duration

        public init(
            schema: String = "stowage",
            operationTimeout: Duration = .seconds(10),
            initialRetryDelay: Duration = .milliseconds(50),
            maximumRetryDelay: Duration = .seconds(5),
            maximumBatchSize: Int = 1_000,
            maximumConnections: Int = 4,
            maximumQueuedWrites: Int = 100_000,
            listensForChanges: Bool = true,
            resynchronizationInterval: Duration? = .seconds(300),
            heartbeatInterval: Duration = .seconds(5),
            author: String? = nil,
            secretKeys: [String] = [],
            historyRetention: HistoryRetention = .forever,
            historyPruningInterval: Duration = .seconds(600)
        ) {
            self.schema = schema
            self.operationTimeout = operationTimeout
            self.initialRetryDelay = initialRetryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.maximumBatchSize = maximumBatchSize
            self.maximumConnections = maximumConnections
            self.maximumQueuedWrites = maximumQueuedWrites
            self.listensForChanges = listensForChanges
            self.resynchronizationInterval = resynchronizationInterval
            self.heartbeatInterval = heartbeatInterval
            self.author = author
            self.secretKeys = secretKeys
            self.historyRetention = historyRetention
            self.historyPruningInterval = historyPruningInterval
            self = bounded
        }

        /// These options within the bounds their documentation states. A
        /// batch of no writes, or a retry or keep-alive without a pause,
        /// would trap or spin; a zero timeout would turn the server's
        /// `statement_timeout` off.
        var bounded: Options {
            var options = self
            options.operationTimeout = max(operationTimeout, .milliseconds(1))
            options.initialRetryDelay = max(initialRetryDelay, .milliseconds(1))
            options.maximumRetryDelay = max(maximumRetryDelay, options.initialRetryDelay)
            options.maximumBatchSize = max(1, maximumBatchSize)
            options.maximumConnections = max(2, maximumConnections)
            options.maximumQueuedWrites = max(1, maximumQueuedWrites)
            options.resynchronizationInterval = resynchronizationInterval.map { max($0, .milliseconds(10)) }
            options.heartbeatInterval = max(heartbeatInterval, .milliseconds(10))
            options.historyPruningInterval = max(historyPruningInterval, .milliseconds(10))
            return options
        }
    }
}

extension PostgresStore {
    /// How long the history of changes keeps an entry.
    public enum HistoryRetention: Sendable, Hashable {
        /// Every entry is kept.
        case forever
        /// Entries older than this are pruned.
        case maximumAge(Duration)
        /// Each key keeps its newest entries, this many.
        case latestPerKey(Int)
    }
}
