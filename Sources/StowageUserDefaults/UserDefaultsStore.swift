public import Foundation
import StowageLocking

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
    let changeObservation: ChangeObservation
    /// The domain as this store last saw it, read when it was made and kept
    /// up to date by its writes, its siblings' and ``refresh()``, which
    /// announces what differs from it. Not what `UserDefaults` reports before
    /// rereading: on Linux that was already the new file's contents at times,
    /// while reads still gave the old values.
    let lastSeen = Locked<[String: StoredValue]>([:])

    /// A store over `UserDefaults.standard`, or another object over the
    /// app's own domain. For a suite, use ``init(suiteName:)``, which knows
    /// the suite's name: listing and ``refresh()`` read the domain by name.
    public init(_ userDefaults: UserDefaults) {
        self.userDefaults = userDefaults
        self.suiteName = nil
        changeObservation = ChangeObservation()
        changeObservation.start(for: self)
        rememberDomain()
        UserDefaultsStoreRegistry.register(self)
    }

    /// A store over the suite named `suiteName`: on Apple platforms an app
    /// group's identifier names the group's shared suite.
    /// - Throws: `StorageError` when `UserDefaults` refuses the name (the
    ///   app's own bundle identifier, or `NSGlobalDomain`), or when it is not
    ///   a plain name: on Linux it is a path under `~/.config`.
    public init(suiteName: String) throws {
        // swift-corelibs-foundation makes the name a path under ~/.config: "../x" would write ~/x.
        let isPlainName = !suiteName.isEmpty && suiteName != "." && suiteName != ".." && !suiteName.contains("/") && !suiteName.contains("\u{0}")
        guard isPlainName, let userDefaults = UserDefaults(suiteName: suiteName) else {
            throw StorageError(
                code: .storeFailure,
                reason:
                    "The suite name \"\(suiteName)\" can not name a suite: it must be a name, without a slash, and not the app's own bundle identifier or NSGlobalDomain."
            )
        }
        self.userDefaults = userDefaults
        self.suiteName = suiteName
        changeObservation = ChangeObservation()
        changeObservation.start(for: self)
        rememberDomain()
        UserDefaultsStoreRegistry.register(self)
    }

    /// Fills `lastSeen` from the domain; values Stowage can not read are left out, so a refresh announces them.
    private func rememberDomain() {
        let domain = UserDefaultsAccess.withLock { userDefaults.persistentDomain(forName: domainName) ?? [:] }
        lastSeen.withLock { $0 = domain.compactMapValues { try? PropertyListForm.storedValue(from: $0, key: "") } }
    }

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        guard let object = UserDefaultsAccess.withLock({ userDefaults.object(forKey: key) }) else { return nil }
        return try PropertyListForm.storedValue(from: object, key: key)
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        _ = try replace([key: value], expecting: nil)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        _ = try replace([key: nil], expecting: nil)
    }

    /// On Linux, compare-and-swap under the lock every call to `UserDefaults`
    /// takes, so it is atomic with every write made through a
    /// `UserDefaultsStore` in this process (not with other processes:
    /// `UserDefaults` has no lock of its own there). On Apple platforms,
    /// where no lock is taken (see `UserDefaultsAccess`), Stowage serialises
    /// its own writes of each key around it.
    public static var replacesAtomically: Bool { UserDefaultsAccess.isLocked }

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        try replace([key: newValue], expecting: [key: expected])
    }

    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        try replace(replacements, expecting: expected)
    }

    /// Writes `replacements` (`nil` removes a key) if every key of `expected`
    /// holds its value, persists them, and tells the other stores over the domain.
    private func replace(_ replacements: [String: StoredValue?], expecting expected: [String: StoredValue?]?) throws -> Bool {
        let objects = replacements.mapValues { $0.map(PropertyListForm.object(for:)) }
        let replaced = try UserDefaultsAccess.withLock { () throws -> Bool in
            for (key, value) in expected ?? [:] {
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
            // Before persisting, which may fail with the values already in memory: readers then see them all at once.
            if replacements.count > 1 { discardCachedValues(forKeys: replacements.keys) }
            if let key = objects.keys.min() { try persist(key) }
            return true
        }
        if replaced { tellSiblings(replacements) }
        return replaced
    }

    /// Announces a change made through this store to the other stores over its domain.
    private func tellSiblings(_ replacements: [String: StoredValue?]) {
        for sibling in UserDefaultsStoreRegistry.siblings(of: self) {
            sibling.lastSeen.withLock { seen in
                for (key, value) in replacements { seen[key] = value }
            }
            sibling.announceChanges(forKeys: replacements.keys)
        }
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

    /// The values written to this store's domain: the suite's, or the app's
    /// for the standard defaults; registered defaults and other domains are
    /// not listed, as they are not kept here.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        let domain = UserDefaultsAccess.withLock { userDefaults.persistentDomain(forName: domainName) ?? [:] }
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
    /// The same as its description: the suite or domain it writes to.
    public var storeName: String { description }

    public var description: String {
        suiteName.map { "UserDefaultsStore(suiteName: \"\($0)\")" } ?? "UserDefaultsStore(\(domainName))"
    }
}

/// The property wrapper for ``UserDefaultsStore``: `@UserDefaultsStorage("launchCount") var launchCount = 0`.
public typealias UserDefaultsStorage<Value: Storable> = Stored<UserDefaultsStore, Value>
