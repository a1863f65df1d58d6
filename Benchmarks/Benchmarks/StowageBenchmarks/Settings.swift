import StowageInMemory

/// Settings as a user declares them: a struct of wrappers on the default store.
struct Settings: Sendable {
    @InMemoryStorage("launchCount") var launchCount = 0
}
