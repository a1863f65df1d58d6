public import Stowage
public import StowageFlags

extension StowageConfigProvider where Store == LayeredStore {
    /// A provider reading a flag pole's flags: each flag's current value
    /// (override, then remote, then its default) under its key, so a
    /// `ConfigReader` reads flags beside the rest of the configuration, and
    /// its watchers hear of overrides and remote updates.
    ///
    /// ```swift
    /// let flags = try FlagPole(AppFlags(), overrides: JSONFileStore(url: overridesURL))
    /// let config = ConfigReader(provider: StowageConfigProvider(flags: flags))
    /// let isOn = config.bool(forKey: "new-checkout", default: false)
    /// ```
    /// - Parameter flags: the pole; its key strategy's separator splits configuration keys.
    public init<Container: FlagContainer>(flags: FlagPole<Container>) {
        self.init(flags.store, name: "flags of \(Container.self)", keyMapping: .separator(flags.keyStrategy.separator))
    }
}
