public import Configuration
public import Stowage

/// A Stowage store's values at one moment, as swift-configuration reads a
/// snapshot: taken with the store's `snapshot()`, decoded as the store (or
/// the layer a value came from) decodes it, secret where the store says so.
///
/// A store that can not list its keys (the default of a custom store, or a
/// ``ConfigProviderStore``) has no snapshot: then every lookup throws a
/// `StorageError` with code `.unsupported` that names the key and says why,
/// rather than reading the live store and letting two reads of one
/// "snapshot" disagree.
public struct StoreConfigSnapshot: ConfigSnapshot {
    /// The name of the provider that took it, as ``StowageConfigProvider/providerName``.
    public let providerName: String
    /// The store's snapshot, or why it has none.
    public let contents: Result<StoreSnapshot, StorageError>
    let keyMapping: ConfigKeyMapping

    init(of store: some UnderlyingStorage, providerName: String, keyMapping: ConfigKeyMapping) {
        self.providerName = providerName
        self.keyMapping = keyMapping
        do {
            contents = .success(try store.snapshot())
        } catch let error as StorageError {
            contents = .failure(error)
        } catch {
            contents = .failure(StorageError(code: .storeFailure, reason: "the store could not be listed.", underlyingError: error))
        }
    }

    /// The value `key` had when the snapshot was taken, read as `type`.
    /// - Throws: `StorageError` naming the key and the type when the value
    ///   has no exact form of `type`; `.unsupported` when the store could not be listed.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let storeKey = keyMapping.storeKey(for: key)
        switch contents {
        case .success(let snapshot):
            guard let content = try ConfigValueMapping.content(type, forKey: storeKey, from: SnapshotValue(snapshot: snapshot, key: storeKey)) else {
                return LookupResult(encodedKey: storeKey, value: nil)
            }
            return LookupResult(encodedKey: storeKey, value: ConfigValue(content, isSecret: snapshot.secretKeys.contains(storeKey)))
        case .failure(let error):
            throw StorageError(
                code: .unsupported, key: storeKey,
                reason: "\(providerName) has no snapshot, because its store can not list its keys (\(error.reason)); read the key through the provider instead.",
                underlyingError: error)
        }
    }
}
