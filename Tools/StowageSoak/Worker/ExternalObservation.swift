import Stowage
import StowageJSONFile
import StowageLocking
import Synchronization

/// Watches the editor's generation the two ways an app would: an observer on
/// a wrapper of the flat store, and a change stream of the nested store. Both
/// deliver in order, so the values they see must never go back.
final class ExternalObservation: Sendable {
    private struct Seen: Sendable {
        var calls = 0
        var largest = 0
    }

    private let observed = Locked(Seen())
    private let streamed = Locked(Seen())
    private let token: ObservationToken
    private let streaming: Task<Void, Never>

    init(flat: JSONFileStore, nested: JSONFileStore, problems: ErrorLog) {
        let observed = observed
        let streamed = streamed
        token = ExternalSettings().$generation.observe { generation in
            Self.note(generation, in: observed, route: "an observer", problems: problems)
        }
        let changes = nested.reference(forKey: SoakKeys.externalGeneration, as: Int.self).changes
        streaming = Task {
            for await generation in changes {
                Self.note(generation ?? 0, in: streamed, route: "a change stream", problems: problems)
            }
        }
    }

    private static func note(_ generation: Int, in seen: Locked<Seen>, route: String, problems: ErrorLog) {
        let previous = seen.withLock { seen in
            defer {
                seen.calls += 1
                seen.largest = max(seen.largest, generation)
            }
            return seen.largest
        }
        if generation < previous {
            problems.record("invariant: \(route) delivered \(SoakKeys.externalGeneration) \(generation) after \(previous)")
        }
    }

    /// Stops watching.
    /// - Returns: how many changes the observer and the stream delivered; the
    ///   stream's first value is the current one, not a change.
    func finish() -> (observed: Int, streamed: Int) {
        token.cancel()
        streaming.cancel()
        return (observed.withLock { $0.calls }, max(0, streamed.withLock { $0.calls } - 1))
    }
}
