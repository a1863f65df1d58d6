import StowageLocking

/// Delivers the flags whose value or origin changed, for one listener of a
/// pole's changes: it marks the flags a change of the pole's store may
/// concern, and one thread at a time reads them, compares each with what it
/// delivered last and delivers the ones that differ, so each flag's states
/// arrive in order and the last delivered is the current one. Nothing is
/// delivered under a lock.
final class FlagChangeFeed: Sendable {
    private struct State {
        var delivered: [Int: FlagState] = [:]
        var due: Set<Int> = []
        var isDelivering = false
        /// Set once the states to compare with are read, after subscribing,
        /// so that no change between the two is lost; until then changes are only marked.
        var hasStarted = false
    }

    private let state = Locked(State())
    private let read: @Sendable (Int) -> FlagState
    private let deliver: @Sendable (FlagState) -> Void

    init(read: @escaping @Sendable (Int) -> FlagState, deliver: @escaping @Sendable (FlagState) -> Void) {
        self.read = read
        self.deliver = deliver
    }

    /// Starts delivering, from `current`, the flags' states read after the feed was subscribed.
    func start(from current: [FlagState]) {
        let indices = state.withLock { state -> Set<Int> in
            state.delivered = Dictionary(uniqueKeysWithValues: current.enumerated().map { ($0, $1) })
            state.hasStarted = true
            return state.due
        }
        flagsMayHaveChanged(indices)
    }

    /// Marks flags as possibly changed, and delivers unless another thread is delivering.
    func flagsMayHaveChanged(_ indices: some Sequence<Int>) {
        let shouldDeliver = state.withLock { state -> Bool in
            state.due.formUnion(indices)
            if !state.hasStarted || state.isDelivering || state.due.isEmpty { return false }
            state.isDelivering = true
            return true
        }
        guard shouldDeliver else { return }
        while true {
            let due = state.withLock { state -> [Int] in
                let due = state.due.sorted()
                state.due = []
                if due.isEmpty { state.isDelivering = false }
                return due
            }
            guard !due.isEmpty else { return }
            let fresh = due.map(read)
            let changed = state.withLock { state in
                fresh.enumerated().compactMap { offset, flag -> FlagState? in
                    let index = due[offset]
                    guard state.delivered[index] != flag else { return nil }
                    state.delivered[index] = flag
                    return flag
                }
            }
            for flag in changed { deliver(flag) }
        }
    }
}
