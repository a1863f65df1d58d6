import Foundation
import StowageFlags

// A program that holds feature flags, as a service would: the tests run it
// beside the `stowage` tool, and the tool's page uses it for its examples.
//
//   StowageFlagsProgram OVERRIDES.json            writes the manifest, prints "manifest <path>",
//                                                 then each change it sees, until standard input closes
//   StowageFlagsProgram OVERRIDES.json --once     writes the manifest and exits
//   … --remote REMOTE.json [--apply PAYLOAD.json]  keeps remote values in a file, after applying a payload

struct ShopFlags: FlagContainer {
    enum Theme: String, Storable, CaseIterable { case light, dark, sepia }

    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @Flag("The colour scheme") var theme = Theme.light
    @FlagGroup("Search") var search = SearchFlags()
}

struct SearchFlags: FlagContainer {
    @Flag("Ranks results with the vector index") var vectorIndex = false
}

func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: StowageFlagsProgram OVERRIDES.json [--once]\n".utf8))
    exit(2)
}
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
}
let remote: any UnderlyingStorage = option("--remote").map { JSONFileStore(url: URL(filePath: $0)) } ?? InMemoryStore()
let flags = try FlagPole(ShopFlags(), overrides: JSONFileStore(url: URL(filePath: path)), remote: remote)
if let payload = option("--apply") {
    let result = try flags.update(with: Data(contentsOf: URL(filePath: payload)))
    for error in result.rejected { say("rejected \(error.message)") }
}
let manifest = try flags.writeManifest()
if arguments.contains("--once") { exit(0) }

// Closures, not streams: top-level code runs on the main actor, which the read below keeps busy.
let observer = flags.observe(\.newCheckout) { say("observer new-checkout=\($0)") }
let everyChange = flags.observe { state in say("change \(state.key)=\(state.value) \(state.origin.rawValue)") }
say("manifest \(manifest.path(percentEncoded: false))")
while readLine() != nil {}
observer.cancel()
everyChange.cancel()
