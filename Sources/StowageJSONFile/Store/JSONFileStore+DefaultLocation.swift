#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Stowage
import StowageLocking

extension JSONFileStore {
    /// The process-wide store, in ``defaultLocation``.
    public static var `default`: JSONFileStore {
        DefaultStore.shared.store()
    }

    /// Where ``default`` keeps its file: on Linux
    /// `$XDG_CONFIG_HOME/<executable name>/settings.json`, or
    /// `~/.config/<executable name>/settings.json` when `XDG_CONFIG_HOME` is not
    /// set; on Apple platforms `settings.json` in a folder named after the
    /// bundle identifier (or the executable) in Application Support.
    public static var defaultLocation: URL {
        DefaultStore.shared.location()
    }

    /// Chooses the file and options of ``default``. Call it once at start-up,
    /// before anything uses ``default``.
    /// - Throws: `StorageError` with code `.storeFailure` once ``default`` is in use.
    public static func configureDefault(url: URL, options: Options = Options()) throws(StorageError) {
        try DefaultStore.shared.configure(url: url, options: options)
    }

    /// The conventional location for an executable named `name`.
    static func conventionalLocation(forExecutableNamed name: String) -> URL {
        #if canImport(Darwin)
        let base = URL.applicationSupportDirectory
        let folder = Bundle.main.bundleIdentifier ?? name
        return base.appending(path: folder, directoryHint: .isDirectory).appending(path: "settings.json")
        #else
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let configured = environment["XDG_CONFIG_HOME"], configured.hasPrefix("/") {
            // The XDG specification says to ignore a relative XDG_CONFIG_HOME.
            base = URL(filePath: configured, directoryHint: .isDirectory)
        } else {
            let home = environment["HOME"] ?? "/"
            base = URL(filePath: home, directoryHint: .isDirectory).appending(path: ".config", directoryHint: .isDirectory)
        }
        return base.appending(path: name, directoryHint: .isDirectory).appending(path: "settings.json")
        #endif
    }
}

/// The configuration and the instance of `JSONFileStore.default`.
private final class DefaultStore: Sendable {
    static let shared = DefaultStore()

    private struct State {
        var configuration: (url: URL, options: JSONFileStore.Options)?
        var store: JSONFileStore?
    }

    private let state = Locked(State())

    func location() -> URL {
        state.withLock { $0.configuration?.url } ?? JSONFileStore.conventionalLocation(forExecutableNamed: ProcessInfo.processInfo.processName)
    }

    func store() -> JSONFileStore {
        if let store = state.withLock({ $0.store }) { return store }
        let configuration = state.withLock { $0.configuration }
        let made = JSONFileStore(url: configuration?.url ?? location(), options: configuration?.options ?? .init())
        return state.withLock { state in
            if let store = state.store { return store }
            state.store = made
            return made
        }
    }

    func configure(url: URL, options: JSONFileStore.Options) throws(StorageError) {
        let inUse = state.withLock { state -> Bool in
            guard state.store == nil else { return true }
            state.configuration = (url, options)
            return false
        }
        if inUse {
            throw StorageError(
                code: .storeFailure,
                reason: "JSONFileStore.configureDefault(url:options:) was called after JSONFileStore.default was first used; call it at start-up.")
        }
    }
}
