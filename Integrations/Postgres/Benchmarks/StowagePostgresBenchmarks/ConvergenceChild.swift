import StowageLocking
import StowagePostgres
import StowageBenchmarkSupport

/// One process of the convergence group, started by ``ChildProcesses``
/// with a hidden subcommand; both run until the parent closes the gate
/// (their standard input), which for them means stop.
///
/// - `__convergence-child writer <namespace> <per-second> <keys>` writes
///   0, 1, 2, … at a steady pace, write `i` to `key-(i % keys)`, through a
///   store that does not listen (so the one listening connection the parent
///   finds to terminate is the watcher's). It says "ready" once connected,
///   starts writing, and at the end says `done <writes>`.
/// - `__convergence-child watcher <namespace> <keys>` opens a store and says
///   "ready" once it receives changes and has heard some. Then, each time
///   its listening connection is lost, it notes when its status says so,
///   when `receivesChanges` is true again, and when it holds, for every
///   key, a value at least as new as the table held just after that (a
///   `SELECT` through a plain client); once it has heard changes again it
///   says `recovered <lost ns> <receiving ns> <caught-up ns>`, and at the
///   end `done`.
enum ConvergenceChild {
    static let subcommand = "__convergence-child"

    /// Changes the watcher hears after each recovery before it says so: pushed changes flow again.
    static let changesHeardWhenSteady = 10
    /// Long enough for a loaded CI machine; a wait that runs out fails the run with what it waited for.
    static let timeout = Duration.seconds(60)

    static func key(_ index: Int, keys: Int) -> String { "key-\(index % keys)" }

    static func run(_ arguments: [String]) async throws {
        let database = try BenchmarkDatabase.fromEnvironment()
        switch (arguments.first, arguments.count) {
        case ("writer", 4):
            guard let perSecond = Int(arguments[2]), let keys = Int(arguments[3]), keys > 0 else { break }
            return try await write(namespace: arguments[1], perSecond: perSecond, keys: keys, database: database)
        case ("watcher", 3):
            guard let keys = Int(arguments[2]), keys > 0 else { break }
            return try await watch(namespace: arguments[1], keys: keys, database: database)
        default: break
        }
        throw BenchmarkFailure("usage: \(subcommand) writer <namespace> <per-second> <keys> | watcher <namespace> <keys>")
    }

    private static func write(namespace: String, perSecond: Int, keys: Int, database: BenchmarkDatabase) async throws {
        let store = try await database.openStore(namespace: namespace, options: .init(listensForChanges: false))
        let stopped = Locked(false)
        ParentChannel.onEndOfInput { stopped.withLock { $0 = true } }
        ParentChannel.say("ready")
        let pace = WritePace(perSecond: perSecond)
        var index = 0
        while !stopped.withLock({ $0 }) {
            try await pace.waitForTurn(index)
            try await store.setAndCommit(index, forKey: key(index, keys: keys))
            index += 1
        }
        ParentChannel.say("done \(index)")
    }

    private static func watch(namespace: String, keys: Int, database: BenchmarkDatabase) async throws {
        let store = try await database.openStore(namespace: namespace)
        let statuses = store.statusUpdates()
        _ = try await firstElement(of: statuses, within: timeout, waitingFor: "the store to receive changes") { $0.receivesChanges }
        try await database.withClient { client in
            for try await _ in try await client.query("SELECT 1") {}  // connected before the first snapshot
            try await hearChanges(store)
            ParentChannel.say("ready")

            let stopped = Locked(false)
            let watching = Task {
                while true {
                    _ = try await firstElement(of: statuses, within: timeout, waitingFor: "the listening connection's loss") { !$0.receivesChanges }
                    let lost = Timestamp.now()
                    _ = try await firstElement(of: statuses, within: timeout, waitingFor: "receivesChanges again") { $0.receivesChanges }
                    let receiving = Timestamp.now()
                    let caughtUp = try await catchUp(store, namespace: namespace, client: client)
                    try await hearChanges(store)
                    ParentChannel.say("recovered \(lost.nanoseconds) \(receiving.nanoseconds) \(caughtUp.nanoseconds)")
                }
            }
            ParentChannel.onEndOfInput {
                stopped.withLock { $0 = true }
                watching.cancel()
            }
            do {
                try await watching.value
            } catch  where stopped.withLock({ $0 }) {
                // Told to stop while waiting for the next loss: the end of the run.
            }
        }
        withExtendedLifetime(store) {}
        ParentChannel.say("done")
    }

    /// Waits until the store holds, for every key, a value at least as new
    /// as the one the table holds now, and returns when it did.
    private static func catchUp(_ store: PostgresStore, namespace: String, client: PostgresClient) async throws -> Timestamp {
        // Asked for before the table is read, so no change between the two goes unseen.
        let changes = store.changes
        var table: [String: Int] = [:]
        let rows = try await client.query("SELECT key, value FROM stowage.entries WHERE namespace = \(namespace) AND NOT removed")
        for try await (key, value) in rows.decode((String, String).self) { table[key] = Int(value) ?? .max }
        func isBehind() -> Bool {
            table.contains { key, value in ((try? store.value(forKey: key, as: Int.self)) ?? -1) < value }
        }
        while isBehind() {
            _ = try await firstElement(of: changes, within: timeout, waitingFor: "the store to hold every value the table held")
        }
        return Timestamp.now()
    }

    /// Waits until the store has announced a few changes: pushed changes reach it.
    private static func hearChanges(_ store: PostgresStore) async throws {
        let changes = store.changes
        for _ in 0..<changesHeardWhenSteady {
            _ = try await firstElement(of: changes, within: timeout, waitingFor: "the writer's changes to reach the watcher")
        }
    }
}
