import StowageFlags

/// A program's flags, as group 13 of the benchmarks declares them.
struct AppFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @FlagGroup("Search") var search = SearchFlags()
}

struct SearchFlags: FlagContainer {
    @Flag("Ranks results with the vector index") var vectorIndex = false
}
