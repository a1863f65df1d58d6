public import Stowage

/// The events the JSON file store reports to `StowageReport.handler`, besides
/// `writeRetriedAndSucceeded`.
extension StoreEvent.Kind {
    /// A file that was not valid JSON was renamed aside, so no data is
    /// destroyed; the store goes on from the values it held before.
    /// `details["backup"]` is the new path.
    public static let fileMovedAside = Self("fileMovedAside")
    /// The store refuses writes from now on: no permission, a file it will
    /// not overwrite. The event's `error` says why; writes fail with
    /// `.readOnly` until the cause is gone.
    public static let madeReadOnly = Self("madeReadOnly")
    /// A store that was read-only accepts writes again; changes it kept
    /// meanwhile are written now.
    public static let writableAgain = Self("writableAgain")
}
