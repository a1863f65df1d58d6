/// A steady write load: write number `i` is due `i` intervals after the
/// start, whatever the earlier writes took, so a slow write is followed by
/// a quicker turn rather than shifting every later one (an open loop, as
/// independent clients would write).
struct WritePace: Sendable {
    let interval: Duration
    private let start = ContinuousClock.now

    init(perSecond: Int) {
        interval = .nanoseconds(1_000_000_000 / max(1, perSecond))
    }

    /// Waits until write `index` is due; at once when it is overdue.
    func waitForTurn(_ index: Int) async throws {
        let due = start + interval * index
        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
    }
}
