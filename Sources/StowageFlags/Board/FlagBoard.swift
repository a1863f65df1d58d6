import StowageLocking

/// The flags of one container, by key: their definitions, the layered store
/// of overrides over remote values over defaults they are read through, and
/// everything done by key (listing, overrides, remote updates, the stream
/// of changes). A ``FlagPole`` adds the program's typed flags and key paths;
/// ``FlagConsole`` opens the same from a manifest, for a tool.
final class FlagBoard: Sendable {
    let definitions: [FlagDefinition]
    let checkers: [any FlagValueChecker]
    let indexByKey: [String: Int]
    /// The container's type name, for messages.
    let containerName: String
    /// What joins the parts of a key, and so the levels of a nested payload.
    let separator: String
    let store: LayeredStore
    let overrides: any UnderlyingStorage
    let remote: any UnderlyingStorage
    let overrideLayer: FlagSourceLayer
    let remoteLayer: FlagSourceLayer
    /// The configurations in flagd's format the remote store holds, compiled.
    let configurations: FlagConfigurations
    /// How `fractional` buckets in their rules.
    let bucketing: FractionalBucketing
    /// Each flag's checker by key, for reading a declared flag's remote value in its canonical form.
    let checkersByKey: [String: any FlagValueChecker]
    /// The pole's own hooks and trackers (``FlagHooks`` holds the global ones).
    let hooks: FlagHookList
    /// Keeps the flags' marks following the hooks: while any hook is
    /// registered, every read evaluates, so that it runs them.
    private let hookObservations = Locked<[ObservationToken]>([])

    /// The key under which a remote update records its time, in the remote store.
    static let remoteUpdateTimeKey = "$remote-updated-at"

    init(
        definitions: [FlagDefinition], checkers: [any FlagValueChecker], containerName: String, separator: String,
        overrides: any UnderlyingStorage, remote: any UnderlyingStorage, bucketing: FractionalBucketing = .flagdCore
    ) {
        self.bucketing = bucketing
        self.definitions = definitions
        self.checkers = checkers
        self.containerName = containerName
        self.separator = separator
        self.overrides = overrides
        self.remote = remote
        // Keys are unique (the catalog and the manifest reader refuse two flags with one key); the first would win.
        indexByKey = Dictionary(definitions.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        let checkersByKey = Dictionary(definitions.indices.map { (definitions[$0].key, checkers[$0]) }, uniquingKeysWith: { first, _ in first })
        let hooks = FlagHookList()
        self.hooks = hooks
        let configurations = FlagConfigurations(
            declared: checkersByKey, isSecret: { remote.isSecret(key: $0) },
            alwaysEvaluate: { !FlagHooks.global.isEmpty || !hooks.isEmpty })
        self.configurations = configurations
        self.checkersByKey = checkersByKey
        overrideLayer = FlagSourceLayer(overrides, role: "override", flags: checkersByKey)
        remoteLayer = FlagSourceLayer(remote, role: "remote", flags: checkersByKey) { change in
            switch change {
            case .allKeys:
                FlagBoard.reloadConfigurations(configurations, from: remote, checkers: checkersByKey, force: true)
            case .key(FlagConfigurations.storeKey):
                FlagBoard.reloadConfigurations(configurations, from: remote, checkers: checkersByKey, force: false)
            case .key(let key) where checkersByKey[key] != nil:
                configurations.remoteValueChanged(forKey: key) { FlagBoard.remoteValue(forKey: $0, in: remote, checkers: checkersByKey) }
            case .key:
                break
            }
        }
        let defaults = InMemoryStore(Dictionary(definitions.map { ($0.key, $0.defaultValue) }, uniquingKeysWith: { first, _ in first }))
        store = LayeredStore(
            [
                LayeredStore.Layer(FlagOrigin.override.rawValue, overrideLayer),
                LayeredStore.Layer(FlagOrigin.remote.rawValue, remoteLayer),
                LayeredStore.Layer(FlagOrigin.default.rawValue, defaults),
            ],
            writingTo: .store(overrideLayer)
        )
    }

    /// Compiles the configurations the remote store holds now and tells each
    /// flag whether a read must evaluate it; call once the program's flags
    /// are bound (a pole's). The remote layer does it after every change.
    func loadConfigurations() {
        Self.reloadConfigurations(configurations, from: remote, checkers: checkersByKey, force: true)
        // What the board's own lets are, not the board: the lists keep it until its tokens go, with it.
        let marks: @Sendable () -> Void = { [configurations, remote, checkersByKey] in
            Self.reloadConfigurations(configurations, from: remote, checkers: checkersByKey, force: true)
        }
        hookObservations.withLock { $0 = [FlagHooks.global.observe(marks), hooks.observe(marks)] }
    }

    /// A declared flag's remote value in its canonical form; `nil` when there is none or it is not of the flag's type.
    private static func remoteValue(forKey key: String, in remote: any UnderlyingStorage, checkers: [String: any FlagValueChecker]) -> StoredValue? {
        guard let checker = checkers[key], let raw = (try? remote.storedValue(forKey: key, .granted)) ?? nil else { return nil }
        return try? checker.canonicalValue(raw, in: remote, key: key)
    }

    private static func reloadConfigurations(
        _ configurations: FlagConfigurations, from remote: any UnderlyingStorage, checkers: [String: any FlagValueChecker], force: Bool
    ) {
        let key = FlagConfigurations.storeKey
        do {
            let rejected = try configurations.reload(
                reading: { () throws(StorageError) in
                    do { return try remote.storedValue(forKey: key, .granted) } catch {
                        throw StorageError.wrapping(
                            error, key: key, code: .storeFailure, reason: "the flag configurations could not be read; the flags keep theirs.")
                    }
                },
                remoteValue: { remoteValue(forKey: $0, in: remote, checkers: checkers) }, force: force)
            for error in rejected { error.report(from: remote) }
        } catch {
            error.report(from: remote)
        }
    }

    func unknownKey(_ key: String) -> StorageError {
        StorageError(code: .unsupported, key: key, reason: "\(containerName) has no flag with this key.")
    }

    /// Returns once the overrides and remote values written so far are durable, where they are in JSON files.
    func flush() throws(StorageError) {
        for store in [overrides, remote] {
            try (store as? JSONFileStore)?.flush()
        }
    }
}
