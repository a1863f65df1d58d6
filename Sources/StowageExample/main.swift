#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import StowageInMemory
import StowageJSONFile

// A short tour of Stowage with the in-memory store. Every line prints what it shows.

enum Theme: String, Storable { case light, dark }

struct Profile: Codable, Storable, Equatable {
    var name = "Guest"
    var favouriteNumbers: [Int] = []
}

extension StorageKeys {
    static let retries = StorageKey<Int>("net.retries", default: 3)
}

let scratch = InMemoryStore()

/// Settings that outlive the process, in `JSONFileStore.defaultLocation`.
struct EnvironmentSettings: Sendable {
    @EnvironmentStorage("greeting") var greeting = "hello"             // GREETING
    @EnvironmentStorage("greetingRepeat") var repeatCount = 2          // GREETING_REPEAT: 3, 0x3, ...
}

struct PersistentSettings: Sendable {
    @JSONFileStorage("launchCount") var launchCount = 0
}

struct Settings: Sendable {
    @InMemoryStorage("launchCount") var launchCount = 0
    @InMemoryStorage("user.name") var userName: String?
    @InMemoryStorage("theme", persistDefault: true) var theme = Theme.light
    @InMemoryStorage("profile", in: scratch) var profile = Profile()
}

let settings = Settings()

print("1. Wrappers")
print("   launchCount starts at its default:", settings.launchCount)
settings.launchCount += 1
settings.$launchCount.modify { $0 += 1 }
print("   after += 1 and an atomic modify:", settings.launchCount)
print("   userName while absent:", settings.userName ?? "nil")
settings.userName = "Ada"
print("   userName after setting it:", settings.userName ?? "nil")
settings.userName = nil
print("   setting nil removed the key:", InMemoryStore.default.values.userName as String? ?? "absent")
print("   theme (default persisted on first read):", settings.theme, "-> stored raw value:", InMemoryStore.default.values.theme as String? ?? "absent")
settings.$profile.name = "Grace"
print("   profile in another store, edited through a key path:", settings.profile.name)

print("2. Dynamic member lookup and references")
let store = InMemoryStore.default
store.values.launchCount = 5
let count: Int? = store.values.launchCount
print("   store.values.launchCount:", count ?? 0)
let reference: StorageReference<InMemoryStore, Int> = store.references.launchCount
print("   one reference per store, key and type:", reference === settings.$launchCount.reference)

print("3. Typed keys")
store[.retries] += 1
print("   retries, default 3 plus one:", store[.retries])

print("4. Observation")
let token = settings.$launchCount.observe { value in print("   observed launchCount =", value) }
settings.launchCount = 10
settings.launchCount = 10
print("   (writing an equal value again notified nobody)")
token.cancel()

var seen: [Int] = []
let stream = settings.$launchCount.changes
let watcher = Task {
    for await value in stream {
        seen.append(value)
        if value == 12 { break }
    }
    return seen
}
settings.launchCount = 11
settings.launchCount = 12
print("   a changes stream saw:", await watcher.value)

print("5. Errors never trap")
// Errors from non-throwing paths go to one process-wide hook; send them to your logger.
StorageError.reportingHandler = { error in print("   reported:", error.message) }
store.values.launchCount = "not a number"
print("   launchCount holding a string reads as its default:", settings.launchCount)
print("   and the error says why:", settings.$launchCount.lastError?.message ?? "none")

print("6. A JSON file that outlives the process")
let persistent = PersistentSettings()
// modify is atomic even against another copy of this program running at the same moment.
persistent.$launchCount.modify { $0 += 1 }
print("   this example has run \(persistent.launchCount) time(s); the count is kept in", JSONFileStore.defaultLocation.path(percentEncoded: false))
print("   run it again and the count goes up; delete the file to start over.")

print("7. Typed settings from the environment")
// GREETING=hi swift run stowage-example   overrides the greeting; the repeat count reads GREETING_REPEAT.
let environment = EnvironmentSettings()
print("   \(Array(repeating: environment.greeting, count: environment.repeatCount).joined(separator: " "))")
let greetingIsSet = EnvironmentStore.default.reference(forKey: "greeting", as: String.self).hasStoredValue
print("   \(EnvironmentStore.default.variableName(forKey: "greeting")) is", greetingIsSet ? "set in the environment" : "not set, so this is the default")
