/// When the change monitor rereads a file that keeps changing.
///
/// The first change after a quiet spell is checked at once, so an edit is
/// still noticed within milliseconds; a change that comes sooner than
/// `minimumInterval` after the last check waits for one trailing check at
/// that interval, which sees it and every change before it. With eight
/// processes taking turns at one file, each process reread it after every
/// other's write, and those rereads took a sixth of the time of the
/// writes themselves.
struct RecheckThrottle: Sendable {
    /// What to do about a change.
    enum Decision: Equatable {
        case checkNow
        /// Check once this has passed; nothing else is to be done meanwhile.
        case checkAfter(Duration)
        /// A check is due already and will see this change.
        case alreadyScheduled
    }

    /// At most one reread a file per this long while it keeps changing.
    static let minimumInterval: Duration = .milliseconds(5)

    private var lastCheck: ContinuousClock.Instant?
    private var isCheckScheduled = false

    /// What to do about a change noticed at `now`.
    mutating func decide(at now: ContinuousClock.Instant, minimumInterval: Duration = Self.minimumInterval) -> Decision {
        if isCheckScheduled { return .alreadyScheduled }
        if let lastCheck, now - lastCheck < minimumInterval {
            isCheckScheduled = true
            return .checkAfter(minimumInterval - (now - lastCheck))
        }
        lastCheck = now
        return .checkNow
    }

    /// Records that the scheduled check runs at `now`.
    mutating func scheduledCheckRuns(at now: ContinuousClock.Instant) {
        lastCheck = now
        isCheckScheduled = false
    }
}
