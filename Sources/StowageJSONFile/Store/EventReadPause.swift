/// How long the change monitor stops reading inotify events after each read.
///
/// Every write to a watched folder reports several events (a writer's
/// temporary file is created, closed and renamed), and each read of them
/// wakes the monitor's queue, which costs more than the events themselves:
/// with eight processes taking turns at one file, each woke for every other's
/// write. Paused, the events queue in the kernel and the next read takes them
/// all. The pause starts at `shortest` and doubles, up to `longest`, while
/// events keep arriving as each pause ends; after a quiet spell the first
/// event is read at once and the pause starts short again. So an edit is
/// noticed within milliseconds, and a burst of writes by other processes
/// within `longest` of each change, well inside a poll interval.
struct EventReadPause: Sendable {
    static let shortest: Duration = .milliseconds(5)
    static let longest: Duration = .milliseconds(80)

    private var current: Duration = .zero
    private var lastRead: ContinuousClock.Instant?

    /// The pause to take after reading events at `now`.
    mutating func afterReading(at now: ContinuousClock.Instant) -> Duration {
        // Events waiting when the last pause ended are read at its end: a burst goes on.
        if let lastRead, now - lastRead <= current * 2 {
            current = min(current * 2, Self.longest)
        } else {
            current = Self.shortest
        }
        lastRead = now
        return current
    }
}
