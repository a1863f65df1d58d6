#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import StowageJSONFile
import StowageJSON

/// Everything a tool needs to work on a container's flags without the
/// program's code: each flag's key, type, default and description, the key
/// strategy, and where the overrides and remote values are kept.
///
/// A pole writes it with ``FlagPole/writeManifest(to:)``, by default beside
/// a file of overrides; a tool reads it with ``init(contentsOf:)``, checks a
/// value with ``FlagType/checked(_:forKey:)`` and opens the overrides with
/// ``FlagFileLocation/openStore(changeDetection:lockTimeout:)``, which takes the same
/// lock the program does.
public struct FlagManifest: Sendable, Hashable {
    /// What the file's `format` member says.
    public static let format = "stowage-flags"
    /// The version of the layout written; a reader refuses a later one.
    public static let version = 1
    /// Where this version of Stowage keeps flag configurations in the remote store.
    public static let defaultConfigurationsKey = "$flag-configurations"

    /// The container's type name.
    public var container: String
    public var keyStrategy: StorageKeyStrategy
    public var flags: [FlagDefinition]
    /// The overrides' file, when they are kept in one.
    public var overrides: FlagFileLocation?
    /// The remote values' file, when they are kept in one.
    public var remote: FlagFileLocation?
    /// The key under which the remote store records the time of the last update.
    public var remoteUpdateTimeKey: String
    /// The key under which the remote store keeps the flags' configurations
    /// in flagd's format, which say which flags target and how: a tool reads
    /// them there (``FlagConsole/configurations``).
    public var configurationsKey: String
    /// How the program's `fractional` splits bucket, so that a tool
    /// evaluates a flag as the program does. Absent from a manifest written
    /// before flags could target: ``FractionalBucketing/flagdCore``.
    public var fractionalBucketing: FractionalBucketing

    public init(
        container: String, keyStrategy: StorageKeyStrategy, flags: [FlagDefinition],
        overrides: FlagFileLocation?, remote: FlagFileLocation?, remoteUpdateTimeKey: String,
        configurationsKey: String = FlagManifest.defaultConfigurationsKey, fractionalBucketing: FractionalBucketing = .flagdCore
    ) {
        self.container = container
        self.keyStrategy = keyStrategy
        self.flags = flags
        self.overrides = overrides
        self.remote = remote
        self.remoteUpdateTimeKey = remoteUpdateTimeKey
        self.configurationsKey = configurationsKey
        self.fractionalBucketing = fractionalBucketing
    }

    /// The flag with `key`.
    public func flag(forKey key: String) -> FlagDefinition? {
        flags.first { $0.key == key }
    }

    /// Reads a manifest a pole wrote.
    /// - Throws: `StorageError` naming the file when it can not be read, is
    ///   not JSON, or is not a manifest of a version this library reads.
    public init(contentsOf url: URL) throws(StorageError) {
        let path = url.path(percentEncoded: false)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StorageError(code: .storeFailure, reason: "the flag manifest \(path) could not be read.")
        }
        let value: StoredValue
        do { value = try JSONParser().parse(data) } catch {
            throw StorageError(code: .invalidJSON, reason: "the flag manifest \(path) is not JSON: \(error.reason)", underlyingError: error)
        }
        do { try self.init(manifestValue: value) } catch {
            throw StorageError(code: error.code, reason: "\(path): \(error.reason)", underlyingError: error.underlyingError)
        }
    }

    init(manifestValue: StoredValue) throws(StorageError) {
        let members = try ManifestReading.members(of: manifestValue, at: "top level")
        guard case .string(Self.format)? = members["format"] else {
            throw ManifestReading.invalid("format", expected: "\"\(Self.format)\"")
        }
        let version = try ManifestReading.integer(members, "version", at: "top level")
        guard version <= Self.version else {
            throw StorageError(code: .unsupported, reason: "the flag manifest is of version \(version); this library reads up to version \(Self.version).")
        }
        let strategy = try ManifestReading.members(of: members["keyStrategy"] ?? .null, at: "keyStrategy")
        guard let caseStyle = StorageKeyStrategy.CaseStyle(manifestName: try ManifestReading.string(strategy, "caseStyle", at: "keyStrategy")) else {
            throw ManifestReading.invalid("keyStrategy.caseStyle", expected: "as-written, kebab-case or snake-case")
        }
        var prefix: String?
        if case .string(let text)? = strategy["prefix"] { prefix = text }
        var flags: [FlagDefinition] = []
        var keys: Set<String> = []
        for (offset, element) in try ManifestReading.array(members, "flags", at: "top level").enumerated() {
            let flag = try FlagDefinition(manifestValue: element, at: "flags[\(offset)]")
            guard keys.insert(flag.key).inserted else { throw ManifestReading.invalid("flags[\(offset)].key", expected: "a key no other flag has") }
            flags.append(flag)
        }
        self.init(
            container: try ManifestReading.string(members, "container", at: "top level"),
            keyStrategy: StorageKeyStrategy(
                separator: try ManifestReading.string(strategy, "separator", at: "keyStrategy"), caseStyle: caseStyle, prefix: prefix),
            flags: flags,
            overrides: try members["overrides"].map { value throws(StorageError) in try FlagFileLocation(storedValue: value, context: "overrides") },
            remote: try members["remote"].map { value throws(StorageError) in try FlagFileLocation(storedValue: value, context: "remote") },
            remoteUpdateTimeKey: try ManifestReading.string(members, "remoteUpdateTimeKey", at: "top level"),
            configurationsKey: members["configurationsKey"] == nil
                ? Self.defaultConfigurationsKey : try ManifestReading.string(members, "configurationsKey", at: "top level"),
            fractionalBucketing: try Self.bucketing(in: members)
        )
    }

    private static func bucketing(in members: [String: StoredValue]) throws(StorageError) -> FractionalBucketing {
        guard members["fractionalBucketing"] != nil else { return .flagdCore }
        let name = try ManifestReading.string(members, "fractionalBucketing", at: "top level")
        guard let bucketing = FractionalBucketing(rawValue: name) else {
            throw ManifestReading.invalid(
                "fractionalBucketing", expected: FractionalBucketing.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or "))
        }
        return bucketing
    }

    /// The manifest as the members of its JSON object.
    var manifestMembers: [String: StoredValue] {
        var strategy: [String: StoredValue] = ["separator": .string(keyStrategy.separator), "caseStyle": .string(keyStrategy.caseStyle.manifestName)]
        if let prefix = keyStrategy.prefix { strategy["prefix"] = .string(prefix) }
        var members: [String: StoredValue] = [
            "format": .string(Self.format),
            "version": .signedInteger(Int64(Self.version)),
            "container": .string(container),
            "keyStrategy": .dictionary(strategy),
            "flags": .array(flags.map(\.manifestValue)),
            "remoteUpdateTimeKey": .string(remoteUpdateTimeKey),
            "configurationsKey": .string(configurationsKey),
            "fractionalBucketing": .string(fractionalBucketing.rawValue),
        ]
        if let overrides { members["overrides"] = overrides.storedValue }
        if let remote { members["remote"] = remote.storedValue }
        return members
    }

    /// Writes the manifest to `url` atomically and durably (through a
    /// `JSONFileStore`, so the file keeps its mode and links), leaving the
    /// file untouched when it already says the same.
    public func write(to url: URL) throws(StorageError) {
        let file = JSONFileStore(url: url, options: JSONFileStore.Options(durability: .immediate, changeDetection: .none))
        let members = manifestMembers
        do {
            while true {
                let current = file.storedEntries(.granted)
                guard current != members else { return }
                var replacements = members.mapValues { Optional($0) }
                for key in current.keys where members[key] == nil { replacements[key] = .some(nil) }
                if try file.replaceStoredValues(expecting: current.mapValues { Optional($0) }, with: replacements, .granted) {
                    file.announceChanges(forKeys: replacements.keys)
                    return
                }
            }
        } catch {
            throw StorageError.storeFailure(error, reason: "the flag manifest could not be written to \(url.path(percentEncoded: false)).")
        }
    }
}
