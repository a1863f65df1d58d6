#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import StowageFlags
import StowageInMemory
import StowageJSONFile

// A small service's configuration, read from four places with a precedence:
// the environment, then a .env file, then a JSON config file, then built-in
// defaults. It prints each setting and where it came from. Try:
//
//   LOGGING_LEVEL=debug SERVER_PORT=7000 swift run stowage-example
//
// and edit Examples/config.json or Examples/example.env. Then it opens the
// service's feature flags, applies what a flag server would send
// (Examples/flags-payload.json) and lists every flag with where its value
// comes from; override one by editing the overrides file it names.

/// Every setting, named once: `Keys.Server.port` is "server.port" in the JSON
/// file and SERVER_PORT in the environment.
enum Keys: StorageKeyGroup {
    enum Server: StorageKeyGroup {
        typealias Parent = Keys
        static let host = key("host", default: "127.0.0.1")
        static let port = key("port", default: 8080)
    }
    enum Database: StorageKeyGroup {
        typealias Parent = Keys
        static let url = key("url", default: "postgres://localhost/dev")
        static let poolSize = key("poolSize", default: 4)
    }
    enum Logging: StorageKeyGroup {
        typealias Parent = Keys
        static let level = key("level", default: "info")
    }
    static let apiToken: StorageKey<String?> = key("apiToken", default: nil)
}

/// The configuration files in `Examples/`, the folder above this program's sources.
let examples = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let environment = EnvironmentStore()
let dotEnv: EnvironmentStore
do {
    dotEnv = try EnvironmentStore(dotEnv: .init(url: examples.appending(path: "example.env")), variables: [:])
} catch {
    print("The .env file could not be read, so it is left out: \(error)")
    dotEnv = EnvironmentStore(variables: [:])
}
let configFile = JSONFileStore(url: examples.appending(path: "config.json"), options: .init(keyLayout: .nested(), changeDetection: .none))

/// The built-in defaults are the keys' own, so they are written once.
let defaults = InMemoryStore()
func useDefault<Value>(of key: StorageKey<Value>) {
    do { try defaults.set(key.defaultValue, forKey: key.name) } catch { print("\(key.name): \(error)") }
}
useDefault(of: Keys.Server.host)
useDefault(of: Keys.Server.port)
useDefault(of: Keys.Database.url)
useDefault(of: Keys.Database.poolSize)
useDefault(of: Keys.Logging.level)

// Configuration is read-only here: nothing takes writes.
let configuration = LayeredStore(
    [.init("environment", environment), .init(".env file", dotEnv), .init("config.json", configFile), .init("built-in defaults", defaults)],
    writingTo: .none
)

/// One line: the key, the value (hidden when secret), and where it came from.
func show<Value>(_ key: StorageKey<Value>) {
    let value: String
    if configuration.isSecret(key: key.name) {
        value = "<redacted>"
    } else {
        do {
            value = try configuration.value(forKey: key.name, as: Value.self).map { "\($0)" } ?? "not set"
        } catch {
            value = "unreadable: \((error as? StorageError)?.message ?? "\(error)")"
        }
    }
    let origin = configuration.origin(forKey: key.name)
    var source = origin?.name ?? "nowhere"
    if let store = origin?.store as? EnvironmentStore { source += " (\(store.variableName(forKey: key.name)))" }
    print("  \(padded(key.name, to: 18)) = \(padded(value, to: 30)) from \(source)")
}

func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

print("Settings, highest precedence first: \(configuration.layers.map(\.name).joined(separator: ", "))")
show(Keys.Server.host)
show(Keys.Server.port)
show(Keys.Database.url)
show(Keys.Database.poolSize)
show(Keys.Logging.level)
show(Keys.apiToken)

print("\nThe same settings through a property wrapper, with the key's default as fallback:")
struct ServerSettings: Sendable {
    @Stored(Keys.Server.port, in: configuration) var port
}
print("  port:", ServerSettings().port)

print("\nA namespace: the database settings alone, as a snapshot (secrets would be redacted):")
for line in try configuration.namespace("database").snapshot().description.split(separator: "\n") { print("  " + line) }

print("\nState that persists, in \(JSONFileStore.defaultLocation.path(percentEncoded: false)):")
let state = JSONFileStore.default
// Earlier versions kept the count under "launches"; this moves it, once, atomically across processes.
let migration = try state.migrateValue(from: "launches", to: "launchCount")
let launches = try state.reference(forKey: "launchCount", as: Int.self).modify { count -> Int in
    let next = (count ?? 0) + 1
    count = next
    return next
}
print("  migration of \"launches\": \(migration); this example has run \(launches) time(s). Run it again, or delete the file to start over.")

// Feature flags: declared once, listed for free, updated remotely, overridden locally.
struct ServiceFlags: FlagContainer {
    @Flag("Serves the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @FlagGroup("Search") var search = SearchFlags()
}
struct SearchFlags: FlagContainer {
    enum RankingModel: String, Storable, CaseIterable { case bm25, dense, hybrid }
    @Flag("Ranks results with the vector index") var vectorIndex = false
    @Flag("The ranking model") var model = RankingModel.bm25
}

// Overrides live in a JSON file beside the state file; the remote values, here, in memory.
let flags = try FlagPole(ServiceFlags())
let update = try flags.update(with: Data(contentsOf: examples.appending(path: "flags-payload.json")))
let manifest = try flags.writeManifest()
print("\nFeature flags, after a payload that changed \(update.changedKeys.joined(separator: ", ")):")
for flag in flags.all {
    print("  \(padded(flag.key, to: 20)) = \(padded(flag.value.description, to: 10)) from \(flag.origin): \(flag.description)")
}
for key in flags.orphanedOverrides.keys.sorted() {
    print("  \(padded(key, to: 20))   overridden, but no flag has this key any more")
}
print("  search ranks with \(flags.search.vectorIndex ? "the vector index and " : "")\(flags.search.model)")
print("  Override a flag in \(FlagPole<ServiceFlags>.defaultOverridesURL.path(percentEncoded: false)), say {\"rate-limit\": 5};")
print("  tools find every flag's key, type and default in \(manifest.path(percentEncoded: false)).")
