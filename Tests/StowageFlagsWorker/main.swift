import Foundation
import StowageFlags
import StowageTestSupport

// A second process for the flag tests, as a tool or another instance of the
// program would be:
//
//   override <manifest> <key> <json>   sets an override through the manifest alone (FlagConsole), as a tool does
//   reset <manifest> <key>             removes it the same way
//   read <overrides> <remote> <key>    opens SharedFlags on the two files and prints the flag's value and origin
//   update <overrides> <remote> <json> applies a payload to the remote file and exits
let arguments = CommandLine.arguments.dropFirst()

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

switch arguments.first {
case "override":
    let values = Array(arguments.dropFirst())
    guard values.count == 3 else { fail("usage: override <manifest> <key> <json>") }
    do {
        let flags = try FlagConsole(contentsOf: URL(filePath: values[0]), changeDetection: .none)
        try flags.override(key: values[1], with: literal(values[2]))
        try flags.flush()
    } catch {
        fail("\(error)")
    }
case "reset":
    let values = Array(arguments.dropFirst())
    guard values.count == 2 else { fail("usage: reset <manifest> <key>") }
    do {
        let flags = try FlagConsole(contentsOf: URL(filePath: values[0]), changeDetection: .none)
        try flags.removeOverride(forKey: values[1])
        try flags.flush()
    } catch {
        fail("\(error)")
    }
case "read":
    let values = Array(arguments.dropFirst())
    guard values.count == 3 else { fail("usage: read <overrides> <remote> <key>") }
    do {
        let flags = try FlagPole(
            SharedFlags(), overrides: JSONFileStore(url: URL(filePath: values[0])), remote: JSONFileStore(url: URL(filePath: values[1]))
        )
        guard let state = flags.state(forKey: values[2]) else { fail("no flag \(values[2])") }
        print("\(state.value) \(state.origin.rawValue) \(flags.remoteUpdatedAt.map { _ in "dated" } ?? "undated")")
    } catch {
        fail("\(error)")
    }
case "update":
    let values = Array(arguments.dropFirst())
    guard values.count == 3 else { fail("usage: update <overrides> <remote> <json>") }
    do {
        let flags = try FlagPole(
            SharedFlags(), overrides: JSONFileStore(url: URL(filePath: values[0])), remote: JSONFileStore(url: URL(filePath: values[1]))
        )
        try flags.update(with: Data(values[2].utf8))
    } catch {
        fail("\(error)")
    }
default:
    fail("unknown command")
}

/// A value as the `stowage` tool reads one: a JSON literal, or the text itself when it is not JSON.
func literal(_ text: String) -> StoredValue {
    (try? JSONDecoder().decode(StoredValue.self, from: Data(text.utf8))) ?? .string(text)
}
