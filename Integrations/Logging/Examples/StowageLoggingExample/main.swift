// Routes Stowage's reports to a swift-log Logger, then meets three of them:
// a settings file that is not JSON (moved aside), a value of the wrong type,
// and a write that failed once and went through on retry. Run with
// `swift run --package-path Integrations/Logging stowage-logging-example`.
import Foundation
import Logging
import StowageJSONFile
import StowageLogging

// The program's logger, as it already has one: to standard output here.
var logger = Logger(label: "example") { StreamLogHandler.standardOutput(label: $0) }
logger.logLevel = .info
StowageLogRouter(logger: logger).install()

let folder = FileManager.default.temporaryDirectory.appending(path: "stowage-logging-example-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let file = folder.appending(path: "settings.json")

// 1. A file cut off halfway: the store moves it aside and starts afresh.
try Data(#"{"retries": "many", "theme": "#.utf8).write(to: file)
let store = JSONFileStore(url: file, options: .init(writeDelay: .seconds(60), changeDetection: .none))

// 2. A value of the wrong type: the wrapper gives its default, and says why.
try store.set("many", forKey: "retries")
let retries = JSONFileStorage(wrappedValue: 3, "retries", in: store)
print("retries = \(retries.wrappedValue)")

// 3. A write that fails (a folder where the lock file goes), then succeeds.
let lock = folder.appending(path: "settings.json.lock")
try? FileManager.default.removeItem(at: lock)
try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
do { try store.flush() } catch { print("flush failed, as planned") }
try FileManager.default.removeItem(at: lock)
try store.flush()
print("flushed")
