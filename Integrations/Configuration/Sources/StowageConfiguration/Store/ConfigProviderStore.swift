public import Configuration
public import Stowage
import StowageLocking

/// A swift-configuration provider as a read-only Stowage store, so its
/// values can be a layer of a `LayeredStore`, with `@Stored` wrappers,
/// typed keys and observation on top.
///
/// ```swift
/// let environment = EnvironmentVariablesProvider()   // swift-configuration's
/// let settings = LayeredStore([.init("overrides", InMemoryStore()), .init("environment", ConfigProviderStore(environment))])
/// struct Server: Sendable {
///     @Stored("http.port", in: settings) var port = 8080   // HTTP_PORT=9090 reads as 9090
/// }
/// ```
///
/// Where the two models do not meet:
/// - **Writes** throw `StorageError` with code `.readOnly`, naming the key:
///   a provider has no way to be written. ``isDefaultWriteLayer`` is
///   `false`, so a layered store writes to another layer.
/// - **Listing**: a provider looks values up by key and type and can not
///   list its keys, so `storedEntries` and `snapshot()` throw `.unsupported`.
/// - **A read with no type** (`storedValue(forKey:)`, what Stowage keeps and
///   compares): the provider is asked for each `ConfigType` in turn, text
///   first, and the first answer that is not an error wins; text first
///   because a provider that keeps text (environment variables) answers it
///   for every value exactly as written, while asking it for `int` first
///   would turn `"007"` into 7 for a key that is read as a string.
/// - **A typed read** (`decodeValue`): when the value found that way is not
///   the type being read, the provider is asked for the matching type, so
///   the environment's `"8080"` reads as `Int` 8080 and `"true"` as `Bool`.
/// - **Secrets**: `isSecret(key:)` is the provider's own answer for the value.
/// - **Changes**: the store watches the provider's snapshots and announces a
///   change of all keys after each, so references read again and observers
///   hear of the values that changed (a `MutableInMemoryProvider`'s
///   `setValue`, a reloading file provider's reload). The first snapshot,
///   the state when watching began, announces only the keys read before it
///   whose values differ from it.
public final class ConfigProviderStore: UnderlyingStorage, Sendable, CustomStringConvertible {
    /// The provider values are read from.
    public let provider: any ConfigProvider
    /// How the store's keys name the provider's keys.
    public let keyMapping: ConfigKeyMapping
    /// The task that watches the provider's snapshots; cancelled with the store.
    private let watcher = Locked<Task<Void, Never>?>(nil)
    /// Per key, the configuration type that answered last, asked first next
    /// time: a provider that keeps types throws for every other one, and
    /// errors are what make a read with no type slow.
    private let answeringTypes = Locked<[String: ConfigType]>([:])
    /// What was read before the watch of the provider began, so that its
    /// first snapshot announces only what changed in between; `nil` once it has.
    private let readsBeforeWatching = Locked<[String: EarlyRead]?>([:])

    /// A read made before the watch's first snapshot.
    private enum EarlyRead {
        /// The provider is being asked: the first snapshot may have come
        /// after the answer, so it announces the key.
        case asking
        /// The provider answered this.
        case answered(StoredValue?)
    }

    /// A store reading `provider`; it starts watching the provider's changes at once.
    /// - Parameters:
    ///   - provider: any swift-configuration provider.
    ///   - keyMapping: how Stowage keys become configuration keys; split on `"."` by default.
    public init(_ provider: some ConfigProvider, keyMapping: ConfigKeyMapping = .dotted) {
        self.provider = provider
        self.keyMapping = keyMapping
        let watch: @Sendable () async -> Void = { [weak self, provider] in
            var failure: (any Error)?
            do {
                try await provider.watchSnapshot { snapshots in
                    var isFirst = true
                    for await snapshot in snapshots {
                        guard let self else { return }
                        if isFirst {
                            // The state when watching began: only a key read before it and changed since is news.
                            isFirst = false
                            self.announceChangesSinceEarlyReads(in: snapshot)
                        } else {
                            // A snapshot does not say which keys changed; references compare and notify only real changes.
                            self.announceChangeOfAllKeys()
                        }
                    }
                }
            } catch {
                failure = error
            }
            guard let self, !Task.isCancelled else { return }
            // A provider whose watch failed or ended gives no first snapshot: stop recording reads for it.
            self.readsBeforeWatching.withLock { $0 = nil }
            // A watch that ends has no more changes to tell; one that fails is reported,
            // with the error's type only, since its text may quote a value.
            guard let failure else { return }
            StowageReport.handler(
                .error(
                    StorageError(
                        code: .storeFailure,
                        reason: "\(provider.providerName) stopped telling its changes (its watch threw \(type(of: failure))); "
                            + "references keep the values they read, and no change of the provider is announced from now on.",
                        storeName: self.storeName)
                ))
        }
        // Started on this thread, so a provider that registers its watcher before its first
        // suspension (the in-memory ones) is watched before `init` returns: no change falls between.
        let task: Task<Void, Never>
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            task = Task.immediate { await watch() }
        } else {
            task = Task { await watch() }
        }
        watcher.withLock { $0 = task }
    }

    deinit {
        watcher.withLock { $0 }?.cancel()
    }

    /// `ConfigProviderStore(<the provider's name>)`, as errors and reports name the store.
    public var description: String { "ConfigProviderStore(\(provider.providerName))" }

    /// The same as ``description``: reports and events name the store by it.
    public var storeName: String { description }

    // MARK: UnderlyingStorage

    /// The provider's value for `key`, asked as each configuration type in
    /// turn, text first; the first answer that is not an error decides.
    /// - Throws: `StorageError` naming the key when the provider answered
    ///   every type with an error.
    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        // Marked before the provider is asked: a first snapshot that comes in
        // between then announces the key, so the answer, perhaps older than
        // the snapshot, is never cached for good.
        readsBeforeWatching.withLock { reads in reads?[key] = .asking }
        let answer = try firstAnswer(forKey: key)
        let stored = (answer ?? nil).map { StoredValue(configContent: $0.content) }
        readsBeforeWatching.withLock { reads in reads?[key] = .answered(stored) }
        return stored
    }

    /// Reads `stored` as `Value`, or, when it is not one, asks the provider
    /// for the configuration type matching `Value` (`int` for an integer,
    /// `bool` for `Bool`), so a provider that parses text per type is read
    /// as it parses it.
    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        do {
            return try Value(storedValue: stored)
        } catch {
            let configKey = keyMapping.configKey(for: key)
            let asked = ConfigValueMapping.configType(for: Value.self).map { [$0] } ?? ConfigValueMapping.probingOrder
            for configType in asked {
                guard let content = try? provider.value(forKey: configKey, type: configType).value?.content,
                    let value = try? Value(storedValue: StoredValue(configContent: content))
                else { continue }
                return value
            }
            let wanted = asked.count == 1 ? "its \(asked[0])" : "any configuration type"
            var unreadable =
                error as? StorageError
                ?? StorageError(code: .typeMismatch, reason: "the value can not be read as \(Value.self).", underlyingError: error)
            if unreadable.key == nil { unreadable.key = key }
            throw
                unreadable
                .explained(by: "\(provider.providerName) has no \(Value.self) as \(wanted) either")
        }
    }

    /// Always refused: a provider can not be written.
    /// - Throws: `StorageError` with code `.readOnly`, naming the key.
    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        throw readOnlyError(forKey: key)
    }

    /// Always refused: a provider can not be written.
    /// - Throws: `StorageError` with code `.readOnly`, naming the key.
    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        throw readOnlyError(forKey: key)
    }

    /// Nothing is ever replaced, so Stowage need take no lock around the store.
    public static let replacesAtomically = true

    /// Always refused: a provider can not be written.
    /// - Throws: `StorageError` with code `.readOnly`, naming the key.
    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        throw readOnlyError(forKey: key)
    }

    /// Always refused: a provider can not be written.
    /// - Throws: `StorageError` with code `.readOnly`, naming the first key.
    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        throw readOnlyError(forKey: replacements.keys.min() ?? expected.keys.min())
    }

    /// Always refused: a provider can not list its keys.
    /// - Throws: `StorageError` with code `.unsupported`.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        throw StorageError(
            code: .unsupported,
            reason: "\(provider.providerName) can not be listed: swift-configuration providers look values up by key and type "
                + "and have no way to tell which keys they hold. Read the keys you know, or list the store the provider reads.")
    }

    /// Whether the provider marks its value for `key` secret; `false` when absent.
    public func isSecret(key: String) -> Bool {
        (try? firstAnswer(forKey: key))??.isSecret ?? false
    }

    /// A provider is a source of settings, not their home: a layered store writes elsewhere.
    public var isDefaultWriteLayer: Bool { false }

    // MARK: Internals

    /// Announces each key read before the watch began whose value in the
    /// watch's first snapshot differs from what was read, and stops recording reads.
    private func announceChangesSinceEarlyReads(in snapshot: any ConfigSnapshot) {
        let early = readsBeforeWatching.withLock { reads in
            defer { reads = nil }
            return reads ?? [:]
        }
        for (key, read) in early {
            guard case .answered(let answered) = read else {
                announceChanges(forKeys: [key])
                continue
            }
            let current = try? firstAnswer(forKey: key, lookup: snapshot.value(forKey:type:))
            if (current ?? nil).map({ StoredValue(configContent: $0.content) }) != answered { announceChanges(forKeys: [key]) }
        }
    }

    /// The provider's answer for `key`; see ``firstAnswer(forKey:lookup:)``.
    private func firstAnswer(forKey key: String) throws -> ConfigValue?? {
        try firstAnswer(forKey: key, lookup: provider.value(forKey:type:))
    }

    /// The answer for `key` as the first configuration type answered without an error: `.some(nil)` when absent.
    ///
    /// The type that answered last for the key is asked first. That keeps the
    /// text-first order: a provider that answers several types answered
    /// `string`, the first of them, last time too.
    private func firstAnswer(forKey key: String, lookup: (AbsoluteConfigKey, ConfigType) throws -> LookupResult) throws -> ConfigValue?? {
        let configKey = keyMapping.configKey(for: key)
        let hint = answeringTypes.withLock { $0[key] }
        if let hint, let answer = try? lookup(configKey, hint) {
            return .some(answer.value)
        }
        var firstError: (any Error)?
        for configType in ConfigValueMapping.probingOrder where configType != hint {
            do {
                let answer = try lookup(configKey, configType)
                if answer.value != nil { answeringTypes.withLock { $0[key] = configType } }
                return .some(answer.value)
            } catch {
                firstError = firstError ?? error
            }
        }
        // The provider's errors are not kept: their text may quote the value.
        throw StorageError(
            code: .storeFailure, key: key,
            reason: "\(provider.providerName) answered every configuration type for this key with an error"
                + (firstError.map { " (the first a \(type(of: $0)))" } ?? "") + ".",
            storeName: storeName)
    }

    private func readOnlyError(forKey key: String?) -> StorageError {
        StorageError(
            code: .readOnly, key: key,
            reason: "\(description) is read-only: a swift-configuration provider can not be written. Write to another layer of the layered store.")
    }
}

extension StorageError {
    /// The same error with a sentence more: why the reading could not be rescued.
    fileprivate func explained(by sentence: String) -> StorageError {
        var copy = self
        copy.reason = reason.hasSuffix(".") ? "\(reason.dropLast()); \(sentence)." : "\(reason); \(sentence)."
        return copy
    }
}
