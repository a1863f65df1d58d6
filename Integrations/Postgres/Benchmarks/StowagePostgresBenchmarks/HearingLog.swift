import StowageLocking
import StowagePostgres
import StowageBenchmarkSupport

/// What one process of the propagation group heard, and when: each write's
/// id once, with the moment it was first seen; and a signal once it has
/// heard everything it waits for.
final class HearingLog: Sendable {
    /// When the log is complete.
    enum Completion: Sendable {
        /// Once each of these ids is heard: a store's observer waits for the
        /// last write of every key, since earlier ones may be overwritten
        /// before it reads them.
        case ids(Set<String>)
        /// Once this many ids are heard: a plain listener gets every notice.
        case count(Int)
    }

    private struct State {
        var heard: [(id: String, at: UInt64)] = []
        var seen: Set<String> = []
        var missing: Set<String>
        var wanted: Int
        var signalled = false

        /// Whether the log just became complete (true once).
        mutating func becameComplete() -> Bool {
            guard !signalled, missing.isEmpty, heard.count >= wanted else { return false }
            signalled = true
            return true
        }
    }

    private let state: Locked<State>
    private let completed: AsyncStream<Void>.Continuation
    private let completion: AsyncStream<Void>

    init(_ completion: Completion) {
        switch completion {
        case .ids(let ids): state = Locked(State(missing: ids, wanted: 0))
        case .count(let count): state = Locked(State(missing: [], wanted: count))
        }
        (self.completion, completed) = AsyncStream.makeStream(of: Void.self)
        if state.withLock({ $0.becameComplete() }) { completed.yield() }
    }

    /// Records `ids` heard at `at`, keeping only the first time of each.
    func record(_ ids: some Sequence<String>, at: Timestamp) {
        let isComplete = state.withLock { state in
            for id in ids where state.seen.insert(id).inserted {
                state.heard.append((id, at.nanoseconds))
                state.missing.remove(id)
            }
            return state.becameComplete()
        }
        if isComplete { completed.yield() }
    }

    /// Waits until the log is complete, at most `timeout`.
    func waitUntilComplete(within timeout: Duration, waitingFor what: String) async throws {
        _ = try await firstElement(of: completion, within: timeout, waitingFor: what)
    }

    /// Records, as `store`'s observer fires, the values (ids) `keys` hold;
    /// stamped first, since the moment the observer fires is what a user's code would see.
    func hear(_ keys: Set<String>, on store: PostgresStore) -> ObservationToken {
        store.observe { change in
            let now = Timestamp.now()
            let changed: [String]
            switch change {
            case .key(let key): changed = keys.contains(key) ? [key] : []
            case .allKeys: changed = Array(keys)
            }
            self.record(changed.compactMap { try? store.value(forKey: $0, as: String.self) }, at: now)
        }
    }

    /// One `heard <id> <monotonic ns>` line per id, for the parent.
    var reportLines: [String] { state.withLock { $0.heard.map { "heard \($0.id) \($0.at)" } } }
}
