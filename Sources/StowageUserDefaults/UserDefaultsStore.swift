public import Foundation

/// A store over Foundation's `UserDefaults`: the standard defaults, a suite,
/// or, on Apple platforms, an app group's suite.
///
/// ```swift
/// struct Settings: Sendable {
///     @UserDefaultsStorage("launchCount") var launchCount = 0   // the standard defaults
///     @UserDefaultsStorage("user.name") var userName: String?
/// }
/// let shared = try UserDefaultsStore(suiteName: "group.com.example.app")
/// shared.values.launchCount = 3
/// ```
///
/// Values are written as other code reading the same defaults expects (a
/// `Bool` as a boolean, an integer as a number, a `String` as a string)
/// wherever `UserDefaults` keeps them exactly, and in an exact form of
/// Stowage's own where it does not (`nil` inside an array, `-0.0`, a date's
/// fraction of a second): no value reaches a call that traps or loses
/// precision. Reads go through `object(forKey:)`, so registered defaults and
/// the argument domain apply as they do to every other reader.
///
/// Not for data several processes write: on Linux, swift-corelibs-foundation
/// rewrites the whole file without a lock, and a file it can not parse is
/// replaced by an empty one (the guide has the figures). Use `JSONFileStore`
/// for that.
public final class UserDefaultsStore: UnderlyingStorage, DefaultInstanceProviding, @unchecked Sendable {
    // Sendable: `UserDefaults` is thread-safe, and the rest is immutable or locked.

    /// The store over `UserDefaults.standard`.
    public static let `default` = UserDefaultsStore(.standard)

    /// The defaults this store reads and writes.
    public let userDefaults: UserDefaults
    /// The suite's name, or `nil` for the standard defaults or a `UserDefaults` passed in.
    public let suiteName: String?

    /// Removes the change notification's observer when the store goes.
    private let changeObservation: ChangeObservation
    /// The domain as this store last saw it, read when it was made and kept
    /// up to date by its writes and by ``refresh()``, which announces what
    /// differs from it. Not what `UserDefaults` reports before rereading: on
    /// Linux that was already the new file's contents at times, while reads
    /// still gave the old values. Changed only while holding `access`.
    private let lastSeen = Locked<[String: StoredValue]>([:])

    /// A store over the given defaults.
    public init(_ userDefaults: UserDefaults) {
        self.userDefaults = userDefaults
        self.suiteName = nil
        changeObservation = ChangeObservation()
        changeObservation.start(for: self)
        rememberDomain()
    }

    /// A store over the suite named `suiteName`: on Apple platforms an app
    /// group's identifier names the group's shared suite.
    /// - Throws: `StorageError` when `UserDefaults` refuses the name (the
    ///   app's own bundle identifier, or `NSGlobalDomain`).
    public init(suiteName: String) throws {
        // swift-corelibs-foundation makes the name a path under ~/.config: "../x" would write ~/x.
        let isPlainName = !suiteName.isEmpty && suiteName != "." && suiteName != ".." && !suiteName.contains("/") && !suiteName.contains("\u{0}")
        guard isPlainName, let userDefaults = UserDefaults(suiteName: suiteName) else {
            throw StorageError(
                code: .storeFailure,
                reason: "The suite name \"\(suiteName)\" can not name a suite: it must be a name, without a slash, and not the app's own bundle identifier or NSGlobalDomain.")
        }
        self.userDefaults = userDefaults
        self.suiteName = suiteName
        changeObservation = ChangeObservation()
        changeObservation.start(for: self)
        rememberDomain()
    }

    /// Fills `lastSeen` from the domain; values Stowage can not read are left out, so a refresh announces them.
    private func rememberDomain() {
        Self.access.withLock {
            let domain = userDefaults.persistentDomain(forName: domainName) ?? [:]
            lastSeen.withLock { $0 = domain.compactMapValues { try? PropertyListForm.storedValue(from: $0, key: "") } }
        }
    }

    /// Every call this module makes to `UserDefaults`, one at a time, in all
    /// stores: swift-corelibs-foundation lost updates when one thread read
    /// while another wrote and synchronised (a compare-and-swap under a lock
    /// of the key alone lost 1 increment in 2,000 in about half the runs of
    /// the conformance suite's concurrent `modify`). Writes are rare and
    /// reads mostly come from references' caches, so one lock costs little.
    static let access = Locked<Void>(())

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        guard let object = Self.access.withLock({ userDefaults.object(forKey: key) }) else { return nil }
        return try PropertyListForm.storedValue(from: object, key: key)
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        let object = PropertyListForm.object(for: value)
        try Self.access.withLock {
            lastSeen.withLock { $0[key] = value }
            try write(object, forKey: key)
        }
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try Self.access.withLock {
            lastSeen.withLock { $0[key] = nil }
            try write(nil, forKey: key)
        }
    }

    /// Compare-and-swap under the lock every access takes, so it is atomic
    /// with every write made through a `UserDefaultsStore` in this process
    /// (not with other processes: on Linux `UserDefaults` has no lock of its own).
    public static let replacesAtomically = true

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        try replaceStoredValues(expecting: [key: expected], with: [key: newValue], access)
    }

    public func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) throws -> Bool {
        let objects = replacements.mapValues { $0.map(PropertyListForm.object(for:)) }
        return try Self.access.withLock {
            for (key, value) in expected {
                let current = try userDefaults.object(forKey: key).map { try PropertyListForm.storedValue(from: $0, key: key) }
                guard current == value else { return false }
            }
            for (key, object) in objects.sorted(by: { $0.key < $1.key }) {
                changeObservation.asOwnChange {
                    if let object { userDefaults.set(object, forKey: key) } else { userDefaults.removeObject(forKey: key) }
                }
            }
            lastSeen.withLock { seen in
                for (key, value) in replacements { seen[key] = value }
            }
            if let key = objects.keys.min() { try persist(key) }
            if replacements.count > 1 { discardCachedValues(forKeys: replacements.keys) }
            return true
        }
    }

    /// Sets or removes one key and persists it; called holding `access`.
    private func write(_ object: Any?, forKey key: String) throws {
        changeObservation.asOwnChange {
            if let object { userDefaults.set(object, forKey: key) } else { userDefaults.removeObject(forKey: key) }
        }
        try persist(key)
    }

    /// On Linux, writes the change to the file at once: swift-corelibs-foundation
    /// writes only when `synchronize()` is called, not even at exit (measured:
    /// no key written without it survived the process). Apple's `UserDefaults`
    /// persists on its own, and `synchronize()` is deprecated there.
    private func persist(_ key: String) throws {
        #if !canImport(Darwin)
        guard userDefaults.synchronize() else {
            throw StorageError(code: .storeFailure, key: key, reason: "UserDefaults could not write its file (\(description)).")
        }
        #endif
    }

    /// Reads the defaults' file again, and announces every key whose value
    /// another process changed.
    ///
    /// On Linux, `UserDefaults` never rereads its file on its own: measured,
    /// a long-running process did not see another's write after 45 seconds.
    /// Nor does `synchronize()` always reread it: while other suites were
    /// written in the same process, it kept serving the old values. So on
    /// Linux this reads the file itself and, where it differs from what
    /// `UserDefaults` holds, hands it the file's contents. Call it when told
    /// the settings changed, or on a timer. On Apple platforms the system
    /// keeps the defaults of all processes in step, and this announces what
    /// changed since the store last looked.
    /// - Throws: `StorageError` when the file can not be read or parsed; nothing is changed then.
    public func refresh() throws {
        let changed = try Self.access.withLock { () throws(StorageError) -> [String] in
            guard userDefaults.synchronize() else {
                throw StorageError(code: .storeFailure, reason: "UserDefaults could not read or write its file (\(description)).")
            }
            #if canImport(Darwin)
            let current = userDefaults.persistentDomain(forName: domainName) ?? [:]
            #else
            // What the other process wrote: `UserDefaults` did not always reread it.
            let current = try fileContents()
            if !Self.holdsTheSameValues(userDefaults.persistentDomain(forName: domainName) ?? [:], current) {
                changeObservation.asOwnChange { userDefaults.setPersistentDomain(current, forName: domainName) }
            }
            #endif
            let now = current.compactMapValues { try? PropertyListForm.storedValue(from: $0, key: "") }
            return lastSeen.withLock { seen in
                defer { seen = now }
                // A key whose value Stowage can not read is announced every time, so a reference reports it.
                return Set(seen.keys).union(current.keys).filter { seen[$0] != now[$0] || now[$0] == nil }.sorted()
            }
        }
        announceChanges(forKeys: changed)
    }

    /// Whether two objects `UserDefaults` returned hold one value; one Stowage
    /// can not read counts as changed, so a reference reads it and reports why.
    static func holdsTheSameValue(_ old: Any, _ new: Any, key: String) -> Bool {
        guard let oldValue = try? PropertyListForm.storedValue(from: old, key: key),
            let newValue = try? PropertyListForm.storedValue(from: new, key: key)
        else { return false }
        return oldValue == newValue
    }

    static func holdsTheSameValues(_ old: [String: Any], _ new: [String: Any]) -> Bool {
        old.count == new.count && old.allSatisfy { key, value in new[key].map { holdsTheSameValue(value, $0, key: key) } ?? false }
    }

    #if !canImport(Darwin)
    /// Where swift-corelibs-foundation keeps the suite: `$XDG_CONFIG_HOME`
    /// when it is an absolute path, else `~/.config`, then the domain's name
    /// and `.plist` (measured; it reads the variables as the process starts).
    var fileURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let folder: URL
        if let configuration = environment["XDG_CONFIG_HOME"], configuration.hasPrefix("/") {
            folder = URL(filePath: configuration, directoryHint: .isDirectory)
        } else {
            folder = URL(filePath: NSHomeDirectory(), directoryHint: .isDirectory).appending(path: ".config", directoryHint: .isDirectory)
        }
        return folder.appending(path: domainName + ".plist", directoryHint: .notDirectory)
    }

    /// The suite's file as a dictionary: empty when there is no file.
    private func fileContents() throws(StorageError) -> [String: Any] {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return [:]
        } catch {
            throw StorageError(code: .storeFailure, reason: "The file of \(description) could not be read.", underlyingError: error)
        }
        guard let contents = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw StorageError(
                code: .storeFailure,
                reason: "The file of \(description) is not a property list of a dictionary; left as it is, and UserDefaults keeps what it held.")
        }
        return contents
    }
    #endif

    /// The values written to this store's domain: the suite's, or the app's
    /// for the standard defaults; registered defaults and other domains are
    /// not listed, as they are not kept here.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        let domain = Self.access.withLock { userDefaults.persistentDomain(forName: domainName) ?? [:] }
        var entries: [String: StoredValue] = [:]
        for (key, object) in domain {
            entries[key] = try PropertyListForm.storedValue(from: object, key: key)
        }
        return entries
    }

    /// The name of the persistent domain this store writes to.
    var domainName: String {
        suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    }
}

extension UserDefaultsStore: CustomStringConvertible {
    public var description: String {
        suiteName.map { "UserDefaultsStore(suiteName: \"\($0)\")" } ?? "UserDefaultsStore(\(domainName))"
    }
}

/// The property wrapper for ``UserDefaultsStore``: `@UserDefaultsStorage("launchCount") var launchCount = 0`.
public typealias UserDefaultsStorage<Value: Storable> = Stored<UserDefaultsStore, Value>
