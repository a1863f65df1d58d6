import Dispatch

extension DispatchTimeInterval {
    /// `duration` to the nanosecond, as dispatch's timers and `asyncAfter`
    /// take it; a negative duration is none.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(Int(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)))
    }
}
