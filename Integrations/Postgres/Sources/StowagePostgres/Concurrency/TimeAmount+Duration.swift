import NIOCore

extension TimeAmount {
    /// `duration` in SwiftNIO's terms, for a timer on an event loop; one
    /// beyond 64-bit nanoseconds (some 292 years) is cut to the longest there is.
    init(saturating duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanoseconds, sumOverflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        self = .nanoseconds(overflowed || sumOverflowed ? (seconds < 0 ? .min : .max) : nanoseconds)
    }
}
