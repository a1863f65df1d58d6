import Foundation
import StowageJSONFile

// A program with a JSON settings file open, as a running service has: the
// tests run several beside the `stowage` tool. It prints "ready", then each
// key that changes, as `key=value` or `key removed`, until standard input closes.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

guard let path = CommandLine.arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: StowageSettingsProgram SETTINGS.json\n".utf8))
    exit(2)
}
let store = JSONFileStore(url: URL(filePath: path))
// A closure, not a stream: top-level code runs on the main actor, which the read below keeps busy.
let token = store.observe { change in
    guard case .key(let key) = change else { return }
    if let value = try? store.value(forKey: key, as: StoredValue.self) {
        say("\(key)=\(value)")
    } else {
        say("\(key) removed")
    }
}
say("ready")
while readLine() != nil {}
token.cancel()
