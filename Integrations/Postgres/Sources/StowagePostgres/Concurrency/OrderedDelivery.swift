import StowageLocking

/// Runs short, non-blocking calls one at a time, in the order they were
/// handed in, on the thread of whichever caller found none running: that
/// caller runs them until none is left, and the others return at once.
///
/// Like a serial dispatch queue, it keeps the order; unlike one, it wakes
/// no thread for a call. A call that hands in another (on the same thread
/// or not) never waits for itself: the one running calls it next.
final class OrderedDelivery: Sendable {
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var isRunning = false
    }

    private let state = Locked(State())

    init() {}

    func deliver(_ call: @escaping @Sendable () -> Void) {
        let runsThem = state.withLock { state -> Bool in
            state.pending.append(call)
            guard !state.isRunning else { return false }
            state.isRunning = true
            return true
        }
        guard runsThem else { return }
        while let next = nextCall() { next() }
    }

    /// The oldest call not run yet; `nil`, and no longer running, when none is left.
    private func nextCall() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.isRunning = false
                return nil
            }
            return state.pending.removeFirst()
        }
    }
}
