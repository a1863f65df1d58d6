#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import StowageJSONFile

extension FlagPole {
    /// The manifest of this pole's flags: keys, types, defaults,
    /// descriptions, and where the overrides and remote values are kept.
    public var manifest: FlagManifest {
        FlagManifest(
            container: String(describing: Container.self), keyStrategy: keyStrategy, flags: definitions,
            overrides: FlagFileLocation(of: overrides), remote: FlagFileLocation(of: remote),
            remoteUpdateTimeKey: Self.remoteUpdateTimeKey, configurationsKey: Self.configurationsKey,
            fractionalBucketing: options.fractionalBucketing
        )
    }

    /// Writes the ``manifest`` for tools, which can then list the flags and
    /// change the overrides while the program runs, without its code.
    ///
    /// - Parameter url: where to write; `nil` for beside the overrides file,
    ///   its name with `.manifest` before the extension (`app-flags.overrides.json`
    ///   gives `app-flags.overrides.manifest.json`).
    /// - Returns: where it was written.
    /// - Throws: `StorageError` when the file can not be written, or `url` is
    ///   `nil` and the overrides are not kept in a JSON file.
    @discardableResult
    public func writeManifest(to url: URL? = nil) throws(StorageError) -> URL {
        guard let destination = url ?? FlagFileLocation(of: overrides).map({ Self.manifestURL(besideOverridesAt: URL(filePath: $0.path)) }) else {
            throw StorageError(code: .unsupported, reason: "the overrides of \(Container.self) are not kept in a JSON file; name where the manifest goes.")
        }
        try manifest.write(to: destination)
        return destination
    }

    /// The manifest's place beside an overrides file: `x.json` gives `x.manifest.json`.
    public static func manifestURL(besideOverridesAt url: URL) -> URL {
        let name = url.lastPathComponent
        let base = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        return url.deletingLastPathComponent().appending(path: base + ".manifest.json")
    }
}
