public import Configuration
public import Stowage
import StowageLocking

/// A Stowage store's values at one moment, as swift-configuration reads a
/// snapshot: taken with the store's `snapshot()`, decoded as the store (or
/// the layer a value came from) decodes it, secret where the store says so.
///
/// A store that can not list its keys (the default of a custom store, or a
/// ``ConfigProviderStore``) has no snapshot to take. Then each key and type
/// is read from the store the first time the snapshot is asked for it, and
/// the answer is kept: asked again, the snapshot gives the same answer, as
/// the protocol asks, and a `ConfigReader` whose providers include such a
/// store still reads its snapshots (its multi-provider snapshot stops at the
/// first provider that throws, so throwing here would fail every key).
public struct StoreConfigSnapshot: ConfigSnapshot {
    /// The name of the provider that took it, as ``StowageConfigProvider/providerName``.
    public let providerName: String
    /// The store's snapshot, or why it has none.
    public let contents: Result<StoreSnapshot, StorageError>
    let keyMapping: ConfigKeyMapping
    /// Where lookups are answered from.
    private let source: Source

    private enum Source: Sendable {
        /// The store's snapshot.
        case listed(StoreSnapshot)
        /// A store that could not be listed: its answers, read once per key and type.
        case unlisted(FirstAnswers)
    }

    init<Store: UnderlyingStorage>(of store: Store, providerName: String, keyMapping: ConfigKeyMapping) {
        self.providerName = providerName
        self.keyMapping = keyMapping
        do {
            let snapshot = try store.snapshot()
            contents = .success(snapshot)
            source = .listed(snapshot)
        } catch {
            let reason = (error as? StorageError).map(\.reason) ?? "the store could not be listed."
            contents = .failure(StorageError(code: .unsupported, reason: reason, storeName: store.storeName))
            source = .unlisted(
                FirstAnswers { storeKey, type in
                    guard let content = try ConfigValueMapping.content(type, forKey: storeKey, from: LiveStoreValue(store: store, key: storeKey)) else {
                        return LookupResult(encodedKey: storeKey, value: nil)
                    }
                    return LookupResult(encodedKey: storeKey, value: ConfigValue(content, isSecret: store.isSecret(key: storeKey)))
                })
        }
    }

    /// The value `key` had when the snapshot was taken (or, for a store that
    /// can not be listed, when the snapshot was first asked for it), read as `type`.
    /// - Throws: `StorageError` naming the key and the type when the value
    ///   has no exact form of `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let storeKey = keyMapping.storeKey(for: key)
        switch source {
        case .listed(let snapshot):
            guard let content = try ConfigValueMapping.content(type, forKey: storeKey, from: SnapshotValue(snapshot: snapshot, key: storeKey)) else {
                return LookupResult(encodedKey: storeKey, value: nil)
            }
            return LookupResult(encodedKey: storeKey, value: ConfigValue(content, isSecret: snapshot.secretKeys.contains(storeKey)))
        case .unlisted(let firstAnswers):
            return try firstAnswers.answer(forKey: storeKey, type: type)
        }
    }
}

/// A store's answers by key and type, each read once and then kept, for the
/// snapshot of a store that can not list its keys.
final class FirstAnswers: Sendable {
    private struct Question: Hashable {
        let key: String
        let type: ConfigType
    }

    private let read: @Sendable (String, ConfigType) throws -> LookupResult
    private let answers = Locked<[Question: Result<LookupResult, any Error>]>([:])

    init(read: @escaping @Sendable (String, ConfigType) throws -> LookupResult) {
        self.read = read
    }

    func answer(forKey key: String, type: ConfigType) throws -> LookupResult {
        let question = Question(key: key, type: type)
        if let kept = answers.withLock({ $0[question] }) { return try kept.get() }
        let answer = Result { try read(key, type) }
        // Two threads asking at once both read; the first answer kept is the one both give from then on.
        return try answers.withLock { answers in
            if let kept = answers[question] { return kept }
            answers[question] = answer
            return answer
        }.get()
    }
}
