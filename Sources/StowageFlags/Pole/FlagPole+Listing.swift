extension FlagPole {
    /// Every flag with its value and origin, in declaration order.
    ///
    /// Each source is read at one moment (the overrides, then the remote
    /// values), so the list shows all of a remote update or none of it.
    /// Reading it inside Observation tracking tracks every flag's value.
    public var all: [FlagState] {
        for declaration in catalog.declarations { declaration.trackAccess() }
        return board.all
    }

    /// The flags whose key, name in code or description contains `text`,
    /// ignoring case; every flag when `text` is empty.
    public func all(matching text: String) -> [FlagState] {
        for declaration in catalog.declarations { declaration.trackAccess() }
        return board.all(matching: text)
    }

    /// The flag with `key`, now; `nil` when no flag has it.
    public func state(forKey key: String) -> FlagState? {
        board.state(forKey: key)
    }

    /// The flag `keyPath` names, now.
    /// - Throws: `StorageError` when `keyPath` names no flag.
    public func state<Value: Storable>(of keyPath: KeyPath<Container, Value>) throws(StorageError) -> FlagState {
        board.currentState(at: try index(of: keyPath))
    }

    /// Every flag's value as a snapshot of ``store``: keys, values in their
    /// stored form, and the origin of each ("override", "remote" or
    /// "default"), taken as ``all`` is.
    public func snapshot() -> StoreSnapshot {
        board.snapshot()
    }
}
