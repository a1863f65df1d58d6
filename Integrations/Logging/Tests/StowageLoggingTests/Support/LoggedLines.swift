import Foundation
import InMemoryLogging
import Logging
import Stowage
import StowageLogging

/// The lines Stowage's reports became, through one router installed for the
/// whole test process (the reporting handlers are process-wide and tests run
/// in parallel), into swift-log's in-memory handler; each test looks for its
/// own store's lines.
enum LoggedLines {
    private static let handler = InMemoryLogHandler()
    private static let arrival = NSCondition()
    private static let installation: Void = {
        var logger = Logger(label: "stowage-logging-tests") { _ in SignallingLogHandler(inner: handler, arrival: arrival) }
        logger.logLevel = .trace
        StowageLogRouter(logger: logger).install()
    }()

    static func install() { installation }

    /// The lines whose `stowage.store` is `store`.
    static func about(store: String) -> [InMemoryLogHandler.Entry] {
        handler.entries.filter { $0.metadata[StowageLogMetadata.store] == .string(store) }
    }

    /// Waits until a line about `store` satisfies `matching`, at most `seconds`.
    static func wait(store: String, seconds: Double = 20, for matching: (InMemoryLogHandler.Entry) -> Bool) -> InMemoryLogHandler.Entry? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        arrival.lock()
        defer { arrival.unlock() }
        while true {
            if let found = about(store: store).first(where: matching) { return found }
            guard arrival.wait(until: deadline) else { return about(store: store).first(where: matching) }
        }
    }
}

/// Keeps each line in swift-log's `InMemoryLogHandler` and wakes the tests waiting for one.
struct SignallingLogHandler: LogHandler {
    var inner: InMemoryLogHandler
    let arrival: NSCondition

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
        arrival.lock()
        arrival.broadcast()
        arrival.unlock()
    }
}

extension InMemoryLogHandler.Entry {
    /// A metadata value as text, `nil` when absent.
    func text(_ key: String) -> String? {
        guard case .string(let value) = metadata[key] else { return nil }
        return value
    }

    /// Everything a reader of the log sees of this line.
    var everything: String {
        "\(level) \(message) \(metadata) \(error.map { "\($0)" } ?? "") \(error.map { String(reflecting: $0) } ?? "")"
    }
}

/// A folder of its own for each test, removed at the end.
final class TemporaryFolder {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appending(path: "stowage-logging-\(UUID().uuidString)").path(percentEncoded: false)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }
}
