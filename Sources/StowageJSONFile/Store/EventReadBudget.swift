/// How often the change monitor reads inotify events when they never stop.
///
/// Every write to a watched folder reports several events (a writer's
/// temporary file is created, closed and renamed), and each read of them
/// wakes the monitor's event thread. With eight processes taking turns at one file,
/// each process woke for every other's write, and the wakeups cost more than
/// the rereads they led to. A budget of reads caps that: `burst` reads may
/// follow one another at once, and one more is allowed every `interval`
/// (500 a second). Past it, the event thread sleeps until a read is allowed again,
/// while the events queue in the kernel, and the next read takes them all.
/// An edit, or edits a few milliseconds apart, never come near it, so they
/// are noticed as soon as before.
struct EventReadBudget: Sendable {
    static let burst = 16
    static let interval: Duration = .milliseconds(2)

    /// Reads allowed now, in `interval`s, up to `burst`; fractions accrue.
    private var available = EventReadBudget.interval * EventReadBudget.burst
    private var lastRead: ContinuousClock.Instant?

    /// Spends a read made at `now`; returns how long to wait before the next
    /// one, zero while the budget lasts.
    mutating func afterReading(at now: ContinuousClock.Instant) -> Duration {
        if let lastRead {
            available = min(available + (now - lastRead), Self.interval * Self.burst)
        }
        lastRead = now
        available -= Self.interval
        return available >= Self.interval ? .zero : Self.interval - available
    }
}
