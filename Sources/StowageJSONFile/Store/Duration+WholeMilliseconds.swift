extension Duration {
    /// The whole milliseconds in the duration, the rest dropped: what `poll`
    /// waits, and what an error message gives.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
