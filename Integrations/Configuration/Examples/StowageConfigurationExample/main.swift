import Foundation
import StowageConfiguration
import StowageEnvironment
import StowageJSONFile

// A service reads its configuration through swift-configuration's
// ConfigReader, from Stowage stores: the environment first, then a JSON
// file. Then another program edits the file, and the reader's watcher hears
// of it. Run it from the repository's root:
//
//   swift run --package-path Integrations/Configuration stowage-configuration-example
//
// and `HTTP_PORT=9000 swift run ...` shows the environment winning.

let folder = FileManager.default.temporaryDirectory.appending(path: "stowage-configuration-example-\(getpid())", directoryHint: .isDirectory)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let fileURL = folder.appending(path: "service.json")
try Data(#"{"http": {"port": 8080, "hosts": ["a.internal", "b.internal"]}, "log": {"level": "info"}}"#.utf8).write(to: fileURL)

// Nested keys, so "http.port" is the member port of the object http; changes by others noticed within 50 ms.
let file = JSONFileStore(url: fileURL, options: .init(keyLayout: .nested(separator: "."), changeDetection: .automatic(pollInterval: .milliseconds(50))))
let environment = EnvironmentStore(variables: ProcessInfo.processInfo.environment.merging(["DATABASE_PASSWORD": "example-only"]) { own, _ in own })

let config = ConfigReader(providers: [StowageConfigProvider(environment), StowageConfigProvider(file)])
print("http.port:", config.int(forKey: "http.port", default: 80))
print("http.hosts:", config.stringArray(forKey: "http.hosts", default: []))
print("log.level:", config.string(forKey: "log.level", default: "warning"))
// The environment store marks it secret, so swift-configuration's access reports and descriptions redact it.
let password = try StowageConfigProvider(environment).value(forKey: ["database", "password"], type: .string)
print("database.password:", password.value.map(String.init(describing:)) ?? "absent")

// Another program edits the file; the watcher hears of it through the file store's change detection.
try await config.watchString(forKey: "log.level", default: "warning") { levels in
    var iterator = levels.makeAsyncIterator()
    print("watching log.level, now", try await iterator.next() ?? "?")
    let editor = Process()
    editor.executableURL = URL(filePath: "/bin/sh")
    // Written beside the file and renamed over it, as editors do, so no reader ever sees half a file.
    editor.arguments = [
        "-c", #"printf '{"http": {"port": 8080}, "log": {"level": "debug"}}' > "$1.tmp" && mv "$1.tmp" "$1""#, "sh", fileURL.path(percentEncoded: false),
    ]
    try editor.run()
    editor.waitUntilExit()
    print("another process set it; now", try await iterator.next() ?? "?")
}
