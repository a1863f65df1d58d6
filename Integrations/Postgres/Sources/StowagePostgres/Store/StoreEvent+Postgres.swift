public import Stowage

/// The events the PostgreSQL store reports to `StowageReport.handler`, besides
/// `writeRetriedAndSucceeded`.
extension StoreEvent.Kind {
    /// The store lost its server; reads come from its cache, and changes made
    /// elsewhere may be missed until it is back.
    public static let disconnected = Self("disconnected")
    /// The store read all of its values again after it may have missed
    /// changes, after a disconnection say, and is current again.
    public static let resynchronized = Self("resynchronized")
}
