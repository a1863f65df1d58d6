import Stowage
import StowageLocking

/// Tells every open event stream that the flags changed: a revision number
/// that grows with each change of a store the flags read, delivered to each
/// listener as the latest one, so a burst of changes reaches a slow client
/// as one event rather than a queue.
final class FlagChangeBroadcast: Sendable {
    private struct State {
        var revision: UInt64 = 0
        var listeners: [UInt64: AsyncStream<UInt64>.Continuation] = [:]
        var nextListener: UInt64 = 0
    }

    private let state = Locked(State())
    /// The observation of the flags' stores, kept as long as the broadcast.
    private let observation = Locked<[ObservationToken]>([])

    init(_ flags: ServedFlags) {
        let token = flags.observe { [weak self] in self?.flagsChanged() }
        observation.withLock { $0 = [token] }
    }

    /// A broadcast of the changes of several stores: the admin page's flags and settings.
    init(observing observers: [@Sendable (_ handler: @escaping @Sendable () -> Void) -> ObservationToken]) {
        let tokens = observers.map { observe in observe { [weak self] in self?.flagsChanged() } }
        observation.withLock { $0 = tokens }
    }

    /// The latest revision.
    var revision: UInt64 { state.withLock { $0.revision } }

    /// The revisions after the current one; of several that came before the
    /// listener read, only the latest. Ends when the listener stops reading.
    func revisions() -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.nextListener += 1 }
            state.listeners[state.nextListener] = continuation
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    private func flagsChanged() {
        let (revision, listeners) = state.withLock { state in
            state.revision += 1
            return (state.revision, Array(state.listeners.values))
        }
        for listener in listeners { listener.yield(revision) }
    }

    deinit {
        let listeners = state.withLock { $0.listeners.values }
        for listener in listeners { listener.finish() }
    }
}
