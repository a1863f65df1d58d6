public import Configuration
public import Stowage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any Stowage store as a swift-configuration provider: a `ConfigReader`
/// reads the environment store, a JSON file, a layered store, a namespace or
/// a flag board the way it reads its own providers.
///
/// ```swift
/// let settings = JSONFileStore(url: URL(filePath: "/etc/checkout/settings.json"))
/// let config = ConfigReader(providers: [
///     StowageConfigProvider(EnvironmentStore()),
///     StowageConfigProvider(settings),
/// ])
/// let port = config.int(forKey: "server.port", default: 8080)
/// ```
///
/// - Keys: a configuration key's components are joined with `"."` into the
///   Stowage key (``ConfigKeyMapping``); its context is ignored, since a
///   Stowage key has none.
/// - Values: each `ConfigType` is read as the Swift type Stowage knows for
///   it, through the store's own decoding, so the environment's `"0x1F"`
///   reads as 31 for `int`. A value with no exact form of the type asked for
///   (a dictionary, 1.5 as an `int`, an integer beyond `Int`) throws a
///   `StorageError` naming the key and the type; an absent key is `nil`, as
///   the protocol asks. Guides/Configuration.md has the full table.
/// - Secrets: a value is secret when the store's `isSecret(key:)` says so.
/// - Changes: ``watchValue(forKey:type:updatesHandler:)`` and
///   ``watchSnapshot(updatesHandler:)`` are fed by the store's own change
///   observation, so an edit of a JSON file by another process reaches a
///   `ConfigReader`'s watchers.
/// - Snapshots: the store's `snapshot()`; for a store that can not list its
///   keys, each key and type read once, when first asked, and then kept.
public struct StowageConfigProvider<Store: UnderlyingStorage>: Sendable {
    /// The store values are read from.
    public let store: Store
    /// How configuration keys name the store's keys.
    public let keyMapping: ConfigKeyMapping
    /// The name access reporters and logs show: `StowageConfigProvider[JSONFileStore(/etc/checkout/settings.json)]`.
    public let providerName: String

    /// A provider reading `store`.
    /// - Parameters:
    ///   - store: any Stowage store.
    ///   - name: what ``providerName`` calls the store; by default its
    ///     `storeName`, as Stowage's reports name it (a JSON file store's
    ///     path, a layered store's layers).
    ///   - keyMapping: how configuration keys become the store's keys; components joined with `"."` by default.
    public init(_ store: Store, name: String? = nil, keyMapping: ConfigKeyMapping = .dotted) {
        self.store = store
        self.keyMapping = keyMapping
        providerName = "StowageConfigProvider[\(name ?? store.storeName)]"
    }

    /// The value of `key` as `type`, with the store's secrecy.
    func lookup(_ key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let storeKey = keyMapping.storeKey(for: key)
        guard let content = try ConfigValueMapping.content(type, forKey: storeKey, from: LiveStoreValue(store: store, key: storeKey)) else {
            return LookupResult(encodedKey: storeKey, value: nil)
        }
        return LookupResult(encodedKey: storeKey, value: ConfigValue(content, isSecret: store.isSecret(key: storeKey)))
    }

}

extension StowageConfigProvider: ConfigProvider {
    /// The current value of `key` read as `type`, from the store (or a live reference's cache).
    /// - Returns: the result, with a `nil` value when the key is absent.
    /// - Throws: `StorageError` naming the key and the type when the value
    ///   has no exact form of `type`, or when the store fails.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try lookup(key, type: type)
    }

    /// The same as ``value(forKey:type:)``: a Stowage store keeps itself
    /// current (a file store watches its file), so there is nothing fresher to ask.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try lookup(key, type: type)
    }

    /// The current value of `key`, then its value after each change the store
    /// announces for it (a write, another process's edit of a file), skipping
    /// announcements that leave it as it was. A burst of changes may arrive
    /// as its last value only. Ends when the calling task is cancelled.
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        let storeKey = keyMapping.storeKey(for: key)
        return try await withChanges(of: store, where: { $0 == .key(storeKey) || $0 == .allKeys }) { signals in
            let reads = ChangeReads(signals: signals, isUnchanged: Self.isUnchanged) { [self] () -> Result<LookupResult, any Error> in
                Result { try lookup(key, type: type) }
            }
            return try await updatesHandler(ConfigUpdatesAsyncSequence(reads))
        }
    }

    /// The store's values at this moment; see ``StoreConfigSnapshot``.
    public func snapshot() -> any ConfigSnapshot {
        StoreConfigSnapshot(of: store, providerName: providerName, keyMapping: keyMapping)
    }

    /// The current snapshot, then a new one after each change the store
    /// announces, skipping those that leave every value as it was.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await withChanges(of: store, where: { _ in true }) { signals in
            let reads = ChangeReads<any ConfigSnapshot>(signals: signals, isUnchanged: Self.isUnchanged) { [self] in
                StoreConfigSnapshot(of: store, providerName: providerName, keyMapping: keyMapping)
            }
            return try await updatesHandler(ConfigUpdatesAsyncSequence(reads))
        }
    }

    /// Two snapshots a watcher need not hear twice: both listed, with the
    /// same values, secrets and origins (which layer a value came from
    /// decides how it is read).
    private static func isUnchanged(_ old: any ConfigSnapshot, _ new: any ConfigSnapshot) -> Bool {
        guard case .success(let old)? = (old as? StoreConfigSnapshot)?.contents,
            case .success(let new)? = (new as? StoreConfigSnapshot)?.contents
        else { return false }
        return old.entries == new.entries && old.secretKeys == new.secretKeys && old.origins == new.origins
    }

    /// Two reads a watcher need not hear twice: the same result (NaN the
    /// same as NaN, as Stowage compares values), or the same error.
    private static func isUnchanged(_ old: Result<LookupResult, any Error>, _ new: Result<LookupResult, any Error>) -> Bool {
        switch (old, new) {
        case let (.success(old), .success(new)):
            old == new
                || (old.encodedKey == new.encodedKey && old.value?.isSecret == new.value?.isSecret
                    && old.value.map { StoredValue(configContent: $0.content) } == new.value.map { StoredValue(configContent: $0.content) })
        case let (.failure(old), .failure(new)): String(describing: old) == String(describing: new)
        default: false
        }
    }
}
