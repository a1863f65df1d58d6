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

    /// A store over the given defaults.
    public init(_ userDefaults: UserDefaults) {
        self.userDefaults = userDefaults
        self.suiteName = nil
        changeObservation = ChangeObservation()
        changeObservation.start(for: self)
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
    }

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        guard let object = userDefaults.object(forKey: key) else { return nil }
        return try PropertyListForm.storedValue(from: object, key: key)
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        let object = PropertyListForm.object(for: value)
        changeObservation.asOwnChange { userDefaults.set(object, forKey: key) }
        try persist(key)
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        changeObservation.asOwnChange { userDefaults.removeObject(forKey: key) }
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

    /// The values written to this store's domain: the suite's, or the app's
    /// for the standard defaults; registered defaults and other domains are
    /// not listed, as they are not kept here.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        let domain = userDefaults.persistentDomain(forName: domainName) ?? [:]
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
