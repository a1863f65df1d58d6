#if !canImport(Darwin)
import Foundation

/// Where swift-corelibs-foundation keeps the property list of a domain, which
/// ``UserDefaultsStore/refresh()`` reads itself on Linux.
///
/// Measured on Swift 6.3's Foundation: the folder is `$XDG_CONFIG_HOME` when
/// it is an absolute path, else `$HOME/.config`: `$HOME` as set, not the home
/// in `/etc/passwd` that `NSHomeDirectory()` gives (a container, a CI job or a
/// service sets its own), `/.config` with `HOME` unset or empty, and a
/// relative `HOME` taken from the current folder. Foundation reads the two
/// variables once, as the process starts: a `setenv` later moves nothing. So
/// they are read here from the environment the process started with.
enum SuiteFileLocation {
    /// The folder of every domain's file, fixed for the life of the process as Foundation's is.
    static let folder: URL = folder(in: startingEnvironment())

    /// The file of the domain `domainName`.
    static func file(ofDomain domainName: String) -> URL {
        folder.appending(path: domainName + ".plist", directoryHint: .notDirectory)
    }

    /// The folder Foundation picks given `environment`.
    static func folder(in environment: [String: String]) -> URL {
        if let configuration = environment["XDG_CONFIG_HOME"], configuration.hasPrefix("/") {
            return URL(filePath: configuration, directoryHint: .isDirectory)
        }
        let home = environment["HOME"] ?? ""
        return URL(filePath: home + "/.config", directoryHint: .isDirectory)
    }

    /// The environment as the process started, from `/proc/self/environ`; this
    /// process's current one where that can not be read.
    private static func startingEnvironment() -> [String: String] {
        guard let data = try? Data(contentsOf: URL(filePath: "/proc/self/environ")), !data.isEmpty else {
            return ProcessInfo.processInfo.environment
        }
        var environment: [String: String] = [:]
        for entry in data.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[entry.startIndex..<equals], as: UTF8.self)
            // The first definition wins, as getenv's does.
            if environment[name] == nil {
                environment[name] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
            }
        }
        return environment
    }
}
#endif
