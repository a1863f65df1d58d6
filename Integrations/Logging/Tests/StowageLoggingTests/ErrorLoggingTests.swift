import Foundation
import InMemoryLogging
import Logging
import StowageEnvironment
import StowageInMemory
import StowageLogging
import Testing

/// Errors met where nothing could throw become lines naming the store and the
/// key, at the documented level, and never with a secret.
struct ErrorLoggingTests {
    init() { LoggedLines.install() }

    @Test func anUnreadableValueIsAWarningNamingTheStoreAndTheKey() throws {
        let store = LabelledStore()
        try store.set("many", forKey: "retries")
        @Stored("retries", in: store) var retries = 3
        #expect(retries == 3)

        let line = try #require(LoggedLines.about(store: store.storeName).first)
        #expect(line.level == .warning)
        #expect(line.text(StowageLogMetadata.key) == "retries")
        #expect(line.text(StowageLogMetadata.errorCode) == "typeMismatch")
        #expect("\(line.message)".hasPrefix("\(store.storeName): Key \"retries\": "), "\(line.message)")
        #expect((line.error as? StorageError)?.code == .typeMismatch, "the error goes with the line, for handlers that keep it")
    }

    /// The environment store quotes a value that does not parse unless its
    /// variable is secret: the log shows the one and never the other.
    @Test func aSecretNeverReachesTheLogAndAPlainValueDoes() throws {
        let secret = "hunter2-\(UUID().uuidString)"
        let plain = "eighty-\(UUID().uuidString)"
        let store = EnvironmentStore(variables: ["API_TOKEN": secret, "PORT": plain])
        #expect(store.isSecret(key: "apiToken"))
        @Stored("apiToken", in: store) var token = 0
        @Stored("port", in: store) var port = 80
        #expect(token == 0 && port == 80)

        let lines = LoggedLines.about(store: store.storeName)
        let tokenLine = try #require(lines.first { $0.text(StowageLogMetadata.key) == "apiToken" })
        let portLine = try #require(lines.first { $0.text(StowageLogMetadata.key) == "port" })
        #expect(portLine.everything.contains(plain), "a value that is not secret is quoted, so this test can see a leak")
        for line in lines {
            #expect(!line.everything.contains(secret), "\(line.everything)")
        }
        #expect("\(tokenLine.message)".contains("API_TOKEN"), "the line still says which variable to fix")
    }

    /// Another library's error text may hold anything, so only its type is logged.
    @Test func theTextOfTheErrorBehindAReportIsLeftOut() throws {
        struct DriverError: Error, CustomStringConvertible {
            var description: String { "authentication failed for password s3cr3t" }
        }
        let handler = InMemoryLogHandler()
        let router = StowageLogRouter(logger: Logger(label: "test") { _ in handler })
        router.log(
            StorageError(code: .storeFailure, key: "motto", reason: "the value could not be written.", underlyingError: DriverError(), storeName: "Remote"))

        let line = try #require(handler.entries.first)
        #expect(!line.everything.contains("s3cr3t"), "\(line.everything)")
        #expect(line.text(StowageLogMetadata.underlyingErrorType)?.hasSuffix("DriverError") == true, "\(line.metadata)")
        #expect(line.level == .error)
    }

    @Test func levelsCanBeChangedAndALoggerAboveThemLogsNothing() {
        let handler = InMemoryLogHandler()
        var levels = StowageLogLevels()
        levels.errorCodes[.typeMismatch] = .debug
        levels.eventKinds[StoreEvent.Kind("resynchronized")] = .info
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .info
        let router = StowageLogRouter(logger: logger, levels: levels)

        router.log(StorageError(code: .typeMismatch, key: "a", reason: "expected Int, found a string.", storeName: "S"))
        router.log(StorageError(code: .invalidValue, key: "b", reason: "not a date.", storeName: "S"))
        router.log(StoreEvent(StoreEvent.Kind("resynchronized"), severity: .notice, storeName: "S", message: "current again."))
        #expect(handler.entries.map(\.level) == [.warning, .info], "the debug line is below the logger's level")
        #expect(handler.entries.map { $0.text(StowageLogMetadata.key) } == ["b", nil])
    }
}

/// An in-memory store with a name of its own, so each test finds its lines.
final class LabelledStore: UnderlyingStorage, Sendable {
    let inner = InMemoryStore()
    let storeName = "LabelledStore(\(UUID().uuidString))"

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? { inner.storedValue(forKey: key, access) }
    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) { inner.setStoredValue(value, forKey: key, access) }
    func removeStoredValue(forKey key: String, _ access: BackendAccess) { inner.removeStoredValue(forKey: key, access) }
}
