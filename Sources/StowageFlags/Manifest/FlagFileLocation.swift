#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import StowageJSONFile

/// A JSON file that holds a container's overrides or remote values, with
/// what a tool needs to open it as the program does.
public struct FlagFileLocation: Sendable, Hashable {
    /// The file's absolute path.
    public var path: String
    public var keyLayout: JSONFileStore.KeyLayout
    public var prettyPrinted: Bool

    public init(path: String, keyLayout: JSONFileStore.KeyLayout = .flat, prettyPrinted: Bool = true) {
        self.path = path
        self.keyLayout = keyLayout
        self.prettyPrinted = prettyPrinted
    }

    /// Where `store` keeps its values; `nil` when it is not a JSON file store.
    public init?(of store: any UnderlyingStorage) {
        guard let file = store as? JSONFileStore else { return nil }
        self.init(
            path: file.url.standardizedFileURL.path(percentEncoded: false),
            keyLayout: file.options.keyLayout, prettyPrinted: file.options.prettyPrinted
        )
    }

    /// The store on the file, laid out as the program lays it out.
    /// - Parameters:
    ///   - changeDetection: how the store notices the program's changes.
    ///   - lockTimeout: how long a write waits for a lock another process
    ///     holds before it fails (`nil`: as long as it takes).
    public func openStore(
        changeDetection: JSONFileStore.Options.ChangeDetection = .automatic(), lockTimeout: Duration? = nil
    ) -> JSONFileStore {
        JSONFileStore(
            url: URL(filePath: path),
            options: JSONFileStore.Options(
                prettyPrinted: prettyPrinted, keyLayout: keyLayout, changeDetection: changeDetection, lockTimeout: lockTimeout
            )
        )
    }
}

extension FlagFileLocation {
    var storedValue: StoredValue {
        var members: [String: StoredValue] = ["path": .string(path), "prettyPrinted": .bool(prettyPrinted)]
        switch keyLayout {
        case .flat: members["keyLayout"] = "flat"
        case .nested(let separator): members["keyLayout"] = ["nested": .string(separator)]
        }
        return .dictionary(members)
    }

    init(storedValue: StoredValue, context: String) throws(StorageError) {
        let members = try ManifestReading.members(of: storedValue, at: context)
        path = try ManifestReading.string(members, "path", at: context)
        prettyPrinted = (try? ManifestReading.bool(members, "prettyPrinted", at: context)) ?? true
        switch members["keyLayout"] {
        case .string("flat")?, nil: keyLayout = .flat
        case .dictionary(let layout)? where layout.count == 1:
            keyLayout = .nested(separator: try ManifestReading.string(layout, "nested", at: context + ".keyLayout"))
        default:
            throw ManifestReading.invalid(context + ".keyLayout", expected: "\"flat\" or {\"nested\": separator}")
        }
    }
}
