/// A type that declares feature flags: `@Flag` properties, and `@FlagGroup`
/// properties holding other containers.
///
/// ```swift
/// struct AppFlags: FlagContainer {
///     @Flag("Shows the new checkout flow") var newCheckout = false
///     @Flag("Requests a client may make each second") var rateLimit = 100
///     @FlagGroup("Search") var search = SearchFlags()
/// }
/// struct SearchFlags: FlagContainer {
///     @Flag("Ranks results with the vector index") var vectorIndex = false
/// }
/// let flags = try FlagPole(AppFlags(), overrides: InMemoryStore())
/// if flags.newCheckout { /* ... */ }
/// ```
///
/// The declaration is the whole list: a ``FlagPole`` finds every flag and
/// group by reflection when it opens the container, once, so there is no
/// list to keep by hand and no macro. A container read outside a pole
/// reads every flag's default.
public protocol FlagContainer: Sendable {}
