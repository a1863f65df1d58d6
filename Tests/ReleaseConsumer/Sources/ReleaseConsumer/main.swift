import Foundation
import Logging
import Stowage
import StowageConfiguration
import StowageEnvironment
import StowageFlags
import StowageHTTP
import StowageHistory
import StowageInMemory
import StowageJSON
import StowageJSONFile
import StowageLocking
import StowageLogging
import StowagePostgres
import StowageTesting
import StowageTracing
import StowageUserDefaults

// One line from each published product, the simplest use of each; Scripts/check-release.sh
// compares what it prints with expected-output.txt beside Package.swift.

let retries = StorageKey<Int>("net.retries", default: 3)
print("Stowage: \(retries.name) defaults to \(retries.defaultValue)")

let memory = InMemoryStore()
try memory.set(1, forKey: "launches")
print("StowageInMemory: launches = \(try memory.value(forKey: "launches", as: Int.self) ?? 0)")

let folder = FileManager.default.temporaryDirectory.appending(path: "release-consumer-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let file = JSONFileStore(url: folder.appending(path: "settings.json"))
try file.set("dark", forKey: "theme")
print("StowageJSONFile: theme = \(try file.value(forKey: "theme", as: String.self) ?? "none")")

let environment = EnvironmentStore(variables: ["HTTP_PORT": "8080"])
print("StowageEnvironment: http.port = \(try environment.value(forKey: "http.port", as: Int.self) ?? 0)")

let defaults = try UserDefaultsStore(suiteName: "release-consumer")
try defaults.set(true, forKey: "onboarded")
print("StowageUserDefaults: onboarded = \(try defaults.value(forKey: "onboarded", as: Bool.self) ?? false)")

struct ConsumerFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
}
let flags = try FlagPole(ConsumerFlags(), overrides: InMemoryStore())
try flags.override(\.newCheckout, with: true)
print("StowageFlags: new-checkout = \(flags.newCheckout)")

try await StorageConformanceSuite { InMemoryStore() }.run(.roundTripOfScalars)
print("StowageTesting: InMemoryStore passes roundTripOfScalars")

print("StowageJSON: \(try StoredValue(jsonText: "[1, true]").jsonText())")

print("StowageHistory: writes made for \(ChangeAuthor.$name.withValue("alice") { ChangeAuthor.name ?? "nobody" })")

let visits = Locked(0)
print("StowageLocking: \(visits.withLock { $0 += 1; return $0 }) visit counted under the lock")

print("StowagePostgres: schema \(PostgresStore.Options().schema) by default")

StowageLogRouter(logger: Logger(label: "release-consumer")).install()
print("StowageLogging: router installed")

let config = ConfigReader(provider: StowageConfigProvider(memory))
print("StowageConfiguration: launches = \(config.int(forKey: "launches", default: 0))")

let tokens = AccessTokens(["a-token"])
print("StowageHTTP: \(OFREPEndpoint.basePath) accepts its token: \(tokens.accepts("a-token"))")
print("StowageTracing: \(FlagTracingHook.semanticReason(.targetingMatch))")
