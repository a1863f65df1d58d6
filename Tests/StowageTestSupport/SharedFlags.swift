public import StowageFlags

/// The flags the flag tests and their worker process both declare, so that
/// a pole in each process reads the same keys.
public struct SharedFlags: FlagContainer {
    public enum Theme: String, Storable, CaseIterable, Sendable { case light, dark, sepia }

    @Flag("Shows the new checkout flow") public var newCheckout = false
    @Flag("Requests a client may make each second") public var rateLimit = 100
    @Flag("The colour scheme") public var theme = Theme.light
    @FlagGroup("Search") public var search = SharedSearchFlags()

    public init() {}
}

public struct SharedSearchFlags: FlagContainer {
    @Flag("Ranks results with the vector index") public var vectorIndex = false
    @Flag("The ranking model") public var model = "bm25"

    public init() {}
}
