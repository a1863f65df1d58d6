#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import StowageJSONFile

/// A container's flags as a tool sees them, the operator's console to a
/// program's ``FlagPole``: opened from the ``FlagManifest`` the program
/// wrote (``FlagPole/writeManifest(to:)``), with none of its code. (The
/// manifest describes the flags; the console reads and changes them.)
///
/// It reads the overrides and the remote values from the files the
/// manifest names, lists every flag with its value and origin as the
/// program's pole does, checks a value against the flag's type before
/// writing it, writes overrides under the same lock as the program (whose
/// store notices them and tells its observers), and streams every change,
/// whoever made it.
///
/// ```swift
/// let flags = try FlagConsole(contentsOf: manifestURL)
/// try flags.override(key: "new-checkout", with: true)
/// for flag in flags.all(matching: "checkout") { print(flag.key, flag.value, flag.origin) }
/// ```
public final class FlagConsole: Sendable {
    /// What the program wrote about its flags.
    public let manifest: FlagManifest
    let board: FlagBoard

    /// Opens the flags a manifest describes.
    /// - Parameters:
    ///   - manifest: what the program wrote.
    ///   - changeDetection: how the files' stores notice the program's changes;
    ///     `.none` for a tool that only writes.
    ///   - lockTimeout: how long a write waits for a lock another process
    ///     holds before it fails with `.timedOut` (`nil`: as long as it takes).
    /// - Throws: `StorageError` when the program keeps its overrides
    ///   somewhere other than a JSON file, which a tool can not reach.
    public init(
        _ manifest: FlagManifest, changeDetection: JSONFileStore.Options.ChangeDetection = .automatic(), lockTimeout: Duration? = nil
    ) throws(StorageError) {
        guard let overrides = manifest.overrides else {
            throw StorageError(
                code: .unsupported,
                reason: "\(manifest.container) keeps its flag overrides outside a JSON file, so a tool can not reach them."
            )
        }
        guard manifest.configurationsKey == FlagManifest.defaultConfigurationsKey else {
            throw StorageError(
                code: .unsupported,
                reason:
                    "\(manifest.container) keeps its flag configurations under \"\(manifest.configurationsKey)\"; this version of Stowage reads them under \"\(FlagManifest.defaultConfigurationsKey)\" only."
            )
        }
        self.manifest = manifest
        board = FlagBoard(
            definitions: manifest.flags, checkers: manifest.flags.map { ManifestValueChecker(type: $0.type) },
            containerName: manifest.container, separator: manifest.keyStrategy.separator,
            overrides: overrides.openStore(changeDetection: changeDetection, lockTimeout: lockTimeout),
            remote: manifest.remote?.openStore(changeDetection: changeDetection, lockTimeout: lockTimeout) ?? InMemoryStore(),
            bucketing: manifest.fractionalBucketing
        )
        board.loadConfigurations()
    }

    /// Opens the flags the manifest at `url` describes.
    /// - Throws: `StorageError` naming the file when it is no manifest, or as ``init(_:changeDetection:lockTimeout:)``.
    public convenience init(
        contentsOf url: URL, changeDetection: JSONFileStore.Options.ChangeDetection = .automatic(), lockTimeout: Duration? = nil
    ) throws(StorageError) {
        try self.init(FlagManifest(contentsOf: url), changeDetection: changeDetection, lockTimeout: lockTimeout)
    }

    /// Whether the remote values are in a file the tool reads; when they are
    /// only in the program's memory, flags show their defaults instead.
    public var seesRemoteValues: Bool { manifest.remote != nil }

    /// The store on the overrides file.
    public var overrides: any UnderlyingStorage { board.overrides }

    /// Every flag with its value and origin, in the program's declaration order.
    public var all: [FlagState] { board.all }

    /// The flags whose key, name in code or description contains `text`, ignoring case.
    public func all(matching text: String) -> [FlagState] { board.all(matching: text) }

    /// The flag with `key`, now; `nil` when no flag has it.
    public func state(forKey key: String) -> FlagState? { board.state(forKey: key) }

    /// Overrides kept for keys no flag has.
    public var orphanedOverrides: [String: StoredValue] { board.orphanedOverrides }

    /// Overrides whose value is not of their flag's type (an edit by hand,
    /// say): the program ignores them; remove them with ``removeOverride(forKey:)``.
    public var invalidOverrides: [String: StoredValue] { board.invalidOverrides }

    /// Overrides the flag with `key`, checked against its type as the manifest
    /// describes it; written to the file before it returns.
    /// - Throws: `StorageError` naming the key when no flag has it, or the value
    ///   is not of its type; `.timedOut` when the lock was held past the timeout,
    ///   and then nothing was written.
    public func override(key: String, with value: StoredValue) throws(StorageError) {
        try board.override(key: key, with: value)
    }

    /// Removes the override kept under `key`, a flag's or a left-over one.
    public func removeOverride(forKey key: String) throws(StorageError) {
        try board.removeOverride(forKey: key)
    }

    /// Removes every override at once.
    /// - Returns: the keys whose overrides were removed, sorted.
    @discardableResult
    public func removeAllOverrides() throws(StorageError) -> [String] {
        try board.removeAllOverrides()
    }

    /// The evaluation of the flag with `key` for `context`, as the program's
    /// ``FlagPole/details(forKey:for:)`` gives it.
    public func details(forKey key: String, for context: EvaluationContext = EvaluationContext()) -> FlagEvaluation<StoredValue?> {
        board.details(forKey: key, context: context)
    }

    /// Every configuration in flagd's format the remote values hold, by key.
    public var configurations: [String: FlagConfiguration] { board.configurations.current.flags.mapValues(\.configuration) }

    /// Every change of any flag's value or origin, whoever made it, as the flag's new state.
    public var changes: AsyncStream<FlagState> { board.changes }

    /// Calls `handler` with a flag's new state after every change of its value or origin.
    public func observe(_ handler: @escaping @Sendable (FlagState) -> Void) -> ObservationToken {
        board.observe(handler)
    }

    /// Returns once the overrides written so far are durable in the file.
    public func flush() throws(StorageError) {
        try board.flush()
    }

    /// When the program last applied a remote payload, when its remote values are in a file.
    public var remoteUpdatedAt: Date? { board.remoteUpdatedAt }
}
