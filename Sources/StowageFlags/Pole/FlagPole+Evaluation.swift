extension FlagPole {
    /// The flag's value for `context`: what `flags.name` reads inside
    /// `EvaluationContext.$current.withValue(context) { … }`.
    public func value<Value>(_ keyPath: KeyPath<Container, Value>, for context: EvaluationContext) -> Value {
        EvaluationContext.$current.withValue(context) { container[keyPath: keyPath] }
    }

    /// The flag's value for `context`, with its variant, the reason, any
    /// error and the metadata, as an OpenFeature provider reports them.
    /// - Parameters:
    ///   - keyPath: the flag, `\.newCheckout`.
    ///   - context: who is asking; the task's context unless given.
    /// - Throws: `StorageError` when `keyPath` names no flag.
    public func details<Value: Storable>(
        _ keyPath: KeyPath<Container, Value>, for context: EvaluationContext = .current
    ) throws(StorageError) -> FlagEvaluation<Value> {
        let (index, declaration) = try declaration(of: keyPath)
        let key = catalog.definitions[index].key
        let resolution = board.resolveWithHooks(key: key, context: context)
        var value = declaration.defaultValue
        if let stored = resolution.value {
            do { value = try Value(storedValue: stored) } catch {
                return FlagEvaluation(
                    key: key, value: declaration.defaultValue, reason: .error, errorCode: .typeMismatch,
                    errorMessage: "flag \(key): its value is not a \(Value.self).", metadata: resolution.metadata)
            }
        }
        return FlagEvaluation(resolution, key: key, value: value)
    }

    /// The evaluation of the flag, or configuration, with `key`, in stored
    /// form: `value` is `nil` where the code's default applies to a key no
    /// flag of the container declares (the caller's default, as for an
    /// OpenFeature client), and the declared default otherwise.
    public func details(forKey key: String, for context: EvaluationContext = .current) -> FlagEvaluation<StoredValue?> {
        board.details(forKey: key, context: context)
    }

    /// Every configuration in flagd's format the remote values hold, by key:
    /// the declared flags' and any others (listed, and evaluated by key, but
    /// read by no declared flag).
    public var configurations: [String: FlagConfiguration] { board.configurations.current.flags.mapValues(\.configuration) }

    /// The flag set's metadata, under every flag's own in an evaluation's.
    public var configurationMetadata: [String: StoredValue] { board.configurations.current.metadata }
}

extension FlagEvaluation {
    init(_ resolution: FlagResolution, key: String, value: Value) {
        self.init(
            key: key, value: value, variant: resolution.variant, reason: resolution.reason, errorCode: resolution.errorCode,
            errorMessage: resolution.errorMessage, metadata: resolution.metadata)
    }
}

extension FlagBoard {
    /// See `FlagPole.details(forKey:for:)`.
    func details(forKey key: String, context: EvaluationContext) -> FlagEvaluation<StoredValue?> {
        let resolution = resolveWithHooks(key: key, context: context)
        let value = resolution.value ?? indexByKey[key].map { definitions[$0].defaultValue }
        return FlagEvaluation(resolution, key: key, value: value)
    }
}
