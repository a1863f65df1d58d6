#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Stowage
import Dispatch
import StowageLocking

/// A store kept in a JSON file: durable, crash-safe, and shared safely by the
/// threads of a process and by several processes.
///
/// Setters return at once; changes are written together in the background
/// within ``Options/writeDelay`` (100 ms by default), and ``flush()`` waits
/// until they are durable. Each write replaces the file atomically (temporary
/// file, fsync, rename, fsync of the directory), so a crash leaves the old
/// file or the new one, never a broken one. Writers in different processes
/// take turns under an `flock` and merge key by key; changes made by other
/// processes or by hand reach references and observers within a second.
///
/// ```swift
/// struct Settings: Sendable {
///     @JSONFileStorage("launchCount") var launchCount = 0
/// }
/// let store = JSONFileStore(url: URL(filePath: "/tmp/settings.json"))
/// store.values.theme = "dark"
/// try store.flush()
/// ```
///
/// See `Guides/JSONFileStore.md` for the guarantees in full.
public final class JSONFileStore: UnderlyingStorage, DefaultInstanceProviding, Sendable {
    /// The file, as given.
    public let url: URL
    let backing: JSONFileBacking

    /// Opens the store kept in the file at `url`; the file and its directory
    /// are created on the first write. Store objects opened on the same file
    /// with the same options share one state.
    ///
    /// Opening never fails: a file that can not be used is kept in
    /// ``lastError`` and reported as a store event to
    /// `StowageReport.handler`: `.fileMovedAside` if it is not JSON,
    /// `.madeReadOnly` if it can not be written.
    public init(url: URL, options: Options = Options()) {
        self.url = url
        backing = JSONFileBackingRegistry.shared.backing(forPath: url.path(percentEncoded: false), options: options)
        backing.register(self)
    }

    /// A store on a private state with its own file system; tests use it to inject faults.
    package init(path: String, options: Options = Options(), fileSystem: any FileSystem) {
        url = URL(filePath: path)
        backing = JSONFileBacking(path: FilePath.absolute(path), options: options, fileSystem: fileSystem)
        JSONFileBackingRegistry.shared.track(backing)
        backing.register(self)
    }

    /// `JSONFileStore(<path>)`, as reports and events name the store.
    public var storeName: String { backing.storeName }

    /// How this store reads and writes its file.
    public var options: Options { backing.options }

    /// The most recent failure of a background write, a reload or opening the
    /// file; `flush()` throws the same.
    public var lastError: StorageError? {
        backing.state.withLock { $0.lastError }
    }

    /// Why the store refuses writes (the file is not a JSON object, a
    /// directory is in its place, no permission), or `nil` when it accepts them.
    public var readOnlyReason: String? {
        backing.state.withLock { $0.readOnlyReason }
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        backing.storedValue(forKey: key)
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        try write(value, forKey: key)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try write(nil, forKey: key)
    }

    /// Atomic with every write to the file in every process: it rereads the
    /// file under the cross-process lock and writes before returning, so
    /// `modify` never loses an update, even against another process.
    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        let (replaced, changed) = try backing.replace(expecting: [key: expected], with: [(key, newValue)])
        backing.announce(changed, exceptKey: key, to: self)
        return replaced
    }

    /// Atomic with every write to the file in every process, like the one-key version.
    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        let ordered = replacements.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        let (replaced, changed) = try backing.replace(expecting: expected, with: ordered)
        backing.announce(changed)
        return replaced
    }

    /// Every key and value, pending changes included. In the nested layout
    /// the keys are the paths of the values that are not objects (and of
    /// empty objects), so that writing them back rebuilds the same file.
    public func storedEntries(_ access: BackendAccess) -> [String: StoredValue] {
        let document = backing.state.withLock { $0.visible }
        guard case .nested(let separator) = options.keyLayout, !separator.isEmpty else { return document }
        var leaves: [String: StoredValue] = [:]
        func collect(_ members: [String: StoredValue], under prefix: String) {
            for (name, value) in members {
                let key = prefix.isEmpty ? name : prefix + separator + name
                if case .dictionary(let children) = value, !children.isEmpty {
                    collect(children, under: key)
                } else {
                    leaves[key] = value
                }
            }
        }
        collect(document, under: "")
        return leaves
    }

    /// Writes and compare-and-swap share the store's own locks, so Stowage adds none.
    public static let replacesAtomically = true

    private func write(_ value: StoredValue?, forKey key: String) throws(StorageError) {
        let changed = try backing.write(value, forKey: key)
        backing.announce(changed, exceptKey: key, to: self)
    }

    // MARK: Durability

    /// Returns once every change made before the call is durable in the file.
    /// - Throws: the write's error; the changes stay pending and the next
    ///   write or flush tries again with a fresh temporary file.
    public func flush() throws(StorageError) {
        backing.announce(try backing.writePendingChanges())
    }

    /// ``flush()``, for `setAndCommit` and the other writes that await durability.
    public func commitPendingWrites() async throws {
        try flush()
    }

    /// Returns once every background write scheduled so far has run (or
    /// found nothing left to write), for tests.
    package func waitForScheduledWrites() {
        backing.scheduledWrites.wait()
    }

    /// Rereads the file now if it changed, rather than waiting for change
    /// detection, and announces what changed.
    public func reload() throws(StorageError) {
        try backing.reloadNow()
    }
}

/// The property wrapper for ``JSONFileStore``: `@JSONFileStorage("launchCount") var launchCount = 0`.
public typealias JSONFileStorage<Value: Storable> = Stored<JSONFileStore, Value>
