import Logging
import PostgresNIO
import Stowage
import StowageLocking

/// The one connection that listens for changes on a database's channel,
/// shared by every store of the process with the same configuration and schema.
///
/// It leases a connection from a pool of its own, sends `LISTEN`, and hands
/// every notice to each subscribed store. When the connection drops, it
/// tells the stores (whose caches may now miss changes), and listens again
/// after a pause drawn at random up to a delay that starts short and doubles;
/// the pool itself reconnects with backoff. A `SELECT 1` every ``heartbeatInterval`` finds a
/// connection that went silent without closing, and closes it.
final class ChangeListener: Sendable {
    /// What a store asks to be told.
    struct Subscriber: Sendable {
        /// `LISTEN` is in place (again): changes from now on will be told, so the store reads everything once.
        let listening: @Sendable () -> Void
        /// The listening connection is gone; `reachable` is false when no new one could be made.
        let lost: @Sendable (_ explanation: String, _ reachable: Bool) -> Void
        let notice: @Sendable (ChangeNotice) -> Void
    }

    /// Ends a store's subscription; the last one stops the listener.
    final class Subscription: Sendable {
        private let listener: ChangeListener
        private let id: UInt64

        fileprivate init(listener: ChangeListener, id: UInt64) {
            self.listener = listener
            self.id = id
        }

        func cancel() {
            ChangeListener.unsubscribe(id, from: listener)
        }
    }

    struct Settings: Sendable {
        let heartbeatInterval: Duration
        let timeout: Duration
        let initialRetryDelay: Duration
        let maximumRetryDelay: Duration
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var isListening = false
        var tasks: [Task<Void, Never>] = []
    }

    /// The running listeners, by database, user and channel.
    private static let listeners = Locked<[String: ChangeListener]>([:])

    private let identity: String
    private let channel: String
    private let client: PostgresClient
    private let settings: Settings
    private let logger: Logger
    private let state = Locked(State())
    /// Every word to the subscribers goes out through here, in order, so a
    /// store never hears "listening" after the "lost" that followed it. The
    /// words are short and never block; a notice reaches the stores on the
    /// listening task's own thread, with no thread woken for it.
    private let words = OrderedDelivery()

    private init(identity: String, configuration: PostgresClient.Configuration, channel: String, settings: Settings) {
        var configuration = configuration
        configuration.options.maximumConnections = 1
        configuration.options.minimumConnections = 0
        // Named so an operator can tell it in pg_stat_activity: "<the application's name> listener".
        let parameters = configuration.options.additionalStartupParameters
        let application = parameters.last(where: { $0.0 == "application_name" })?.1
        configuration.options.additionalStartupParameters =
            parameters.filter { $0.0 != "application_name" }
            + [("application_name", application.map { "\($0) listener" } ?? Self.applicationName)]
        let attempts = ConnectionAttempts()
        self.identity = identity
        self.channel = channel
        self.settings = settings
        logger = Logger(label: "stowage.postgres.listener") { _ in ConnectionAttemptLogHandler(attempts: attempts) }
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        attempts.onFailure { [weak self] explanation in
            self?.broadcast { $0.lost("could not connect to listen for changes: \(explanation)", false) }
        }
    }

    /// The `application_name` of the listening connection when the
    /// configuration sets none; otherwise it is the configuration's followed by " listener".
    static let applicationName = "stowage listener"

    /// What stores must have in common to share a listener: the server, the
    /// database, the credentials, TLS and every connection option, the
    /// channel, and the listener's settings. A store that asks for TLS never listens over a connection made
    /// without it. Kept in memory only; never written anywhere.
    static func identity(of configuration: PostgresClient.Configuration, channel: String, settings: Settings) -> String {
        let endpoint = configuration.unixSocketPath ?? "\(configuration.host ?? ""):\(configuration.port ?? 5432)"
        let options = configuration.options
        return [
            endpoint, configuration.database ?? "", configuration.username, configuration.password ?? "",
            String(reflecting: configuration.tls), options.tlsServerName ?? "", "\(options.connectTimeout)",
            options.additionalStartupParameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&"), channel,
            "\(settings.heartbeatInterval) \(settings.timeout) \(settings.initialRetryDelay) \(settings.maximumRetryDelay)",
        ].joined(separator: "\u{0}")
    }

    /// Subscribes a store to the listener of `identity`, starting one when there is none.
    static func subscribe(
        identity: String, configuration: PostgresClient.Configuration, channel: String, settings: Settings, subscriber: Subscriber
    ) -> Subscription {
        let (listener, id) = listeners.withLock { listeners in
            let listener =
                listeners[identity]
                ?? {
                    let new = ChangeListener(identity: identity, configuration: configuration, channel: channel, settings: settings)
                    new.start()
                    listeners[identity] = new
                    return new
                }()
            let id = listener.state.withLock { state in
                state.nextID += 1
                state.subscribers[state.nextID] = subscriber
                return state.nextID
            }
            return (listener, id)
        }
        // A listener already listening tells the new store so, in its turn among the other words.
        listener.words.deliver {
            if listener.state.withLock({ $0.isListening && $0.subscribers[id] != nil }) { subscriber.listening() }
        }
        return Subscription(listener: listener, id: id)
    }

    private static func unsubscribe(_ id: UInt64, from listener: ChangeListener) {
        let tasks = listeners.withLock { listeners -> [Task<Void, Never>] in
            listener.state.withLock { state in
                state.subscribers[id] = nil
                guard state.subscribers.isEmpty else { return [] }
                if listeners[listener.identity] === listener { listeners[listener.identity] = nil }
                defer { state.tasks.removeAll() }
                return state.tasks
            }
        }
        for task in tasks { task.cancel() }
    }

    private func start() {
        let client = client
        // Detached: they serve every subscribed store, and must not end with the graceful shutdown
        // of whichever store's run() happened to start them (postgres-nio's client stops on one).
        let pool = Task.detached(executorPreference: StoreExecutor.shared) { await client.run() }
        let listening = Task.detached(executorPreference: StoreExecutor.shared) { await self.listen() }
        state.withLock { $0.tasks = [pool, listening] }
    }

    /// Listens until cancelled, listening again after each loss.
    private func listen() async {
        var delay = settings.initialRetryDelay
        while !Task.isCancelled {
            let explanation: String
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notices in
                        delay = settings.initialRetryDelay
                        setListening(true)
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { try await self.keepAlive(connection) }
                            group.addTask {
                                for try await notice in notices { self.deliver(ChangeNotice(payload: notice.payload)) }
                                throw ListeningEnded()
                            }
                            defer { group.cancelAll() }
                            try await group.next()
                        }
                    }
                }
                explanation = "the listening connection ended"
            } catch is ListeningEnded {
                explanation = "the listening connection ended"
            } catch {
                explanation = "the listening connection failed: \(DatabaseFailure.explanation(of: error))"
            }
            setListening(false)
            guard !Task.isCancelled else { return }
            broadcast { $0.lost(explanation, true) }
            // "Full jitter": anywhere up to the delay, so the servers of a fleet that lost their
            // listeners together come back spread out, and a lone loss is mended in half the delay.
            try? await Task.sleep(for: delay * Double.random(in: 0...1))
            delay = min(delay * 2, settings.maximumRetryDelay)
        }
    }

    private struct ListeningEnded: Error {}

    /// Asks the server something at intervals; a connection that does not
    /// answer in time is closed, so a silent network can not leave the
    /// stores believing they hear every change.
    private func keepAlive(_ connection: PostgresConnection) async throws {
        let (logger, timeout) = (logger, settings.timeout)
        while true {
            try await Task.sleep(for: settings.heartbeatInterval)
            // A question on a silent connection never ends, and can not be cancelled: race it with a deadline.
            let answer = FirstOutcome<Void>()
            Task(executorPreference: StoreExecutor.shared) {
                do {
                    for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                    answer.resolve(.success(()))
                } catch {
                    answer.resolve(.failure(error))
                }
            }
            let deadline = Task(executorPreference: StoreExecutor.shared) {
                try? await Task.sleep(for: timeout)
                answer.resolve(.failure(DatabaseFailure.NoAnswer(timeout: timeout)))
            }
            defer { deadline.cancel() }
            do {
                try await answer.value()
            } catch {
                // Closing it ends the question, and the listening, with an error.
                try? await connection.close()
                throw error
            }
        }
    }

    private func setListening(_ isListening: Bool) {
        state.withLock { $0.isListening = isListening }
        if isListening { broadcast { $0.listening() } }
    }

    private func deliver(_ notice: ChangeNotice) {
        broadcast { $0.notice(notice) }
    }

    /// Tells every subscriber, in its turn among the words.
    private func broadcast(_ body: @escaping @Sendable (Subscriber) -> Void) {
        words.deliver { [state] in
            for subscriber in state.withLock({ Array($0.subscribers.values) }) { body(subscriber) }
        }
    }
}
