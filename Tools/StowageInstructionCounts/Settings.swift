import StowageInMemory

/// Settings as a user declares them: a struct of wrappers on the default
/// store, as benchmarks 1a and 2a read and write them.
struct Settings: Sendable {
    @InMemoryStorage("launchCount") var launchCount = 0
}
