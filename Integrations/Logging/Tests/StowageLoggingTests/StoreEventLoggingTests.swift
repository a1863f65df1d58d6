import Foundation
import InMemoryLogging
import Logging
import StowageJSONFile
import StowageLogging
import Testing

/// Each event a store goes through becomes one line with the documented
/// level, message and metadata, from real stores on real files.
struct StoreEventLoggingTests {
    init() { LoggedLines.install() }

    @Test func aFileMovedAsideIsLoggedAsAnErrorWithItsBackup() throws {
        let folder = TemporaryFolder()
        let path = folder.file("settings.json")
        try Data("{\"theme\": ".utf8).write(to: URL(fileURLWithPath: path))
        let store = JSONFileStore(url: URL(fileURLWithPath: path), options: .init(changeDetection: .none))

        let line = try #require(LoggedLines.about(store: store.storeName).first { $0.text(StowageLogMetadata.event) == "fileMovedAside" })
        #expect(line.level == .error)
        #expect("\(line.message)".hasPrefix("JSONFileStore(\(path)): \(path) was not valid JSON and was moved aside to \(path).corrupt-"), "\(line.message)")
        #expect(line.text(StowageLogMetadata.errorCode) == "corruptFile")
        #expect(line.text(StowageLogMetadata.detail("path")) == path)
        let backup = try #require(line.text(StowageLogMetadata.detail("backup")))
        #expect(FileManager.default.fileExists(atPath: backup), "the line names the backup as it is on disk")
    }

    @Test func aStoreMadeReadOnlyAndWritableAgainIsLoggedBothTimes() throws {
        let folder = TemporaryFolder()
        let path = folder.file("settings.json")
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: path))
        let store = JSONFileStore(url: URL(fileURLWithPath: path), options: .init(changeDetection: .none))
        let readOnly = try #require(LoggedLines.about(store: store.storeName).first { $0.text(StowageLogMetadata.event) == "madeReadOnly" })
        #expect(readOnly.level == .error)
        #expect("\(readOnly.message)".contains("read-only"), "\(readOnly.message)")
        #expect(readOnly.text(StowageLogMetadata.errorCode) == "readOnly")

        try Data("{\"theme\": \"dark\"}".utf8).write(to: URL(fileURLWithPath: path))
        try store.reload()
        let writable = try #require(LoggedLines.about(store: store.storeName).first { $0.text(StowageLogMetadata.event) == "writableAgain" })
        #expect(writable.level == .notice)
        #expect(writable.text(StowageLogMetadata.detail("path")) == path)
    }

    /// The lock file's place taken by a folder fails the write; once it is
    /// gone, the write goes through and says after how many tries.
    @Test func aWriteThatSucceedsOnRetryIsLoggedAsANotice() throws {
        let folder = TemporaryFolder()
        let path = folder.file("settings.json")
        let store = JSONFileStore(url: URL(fileURLWithPath: path), options: .init(writeDelay: .seconds(60), changeDetection: .none))
        try FileManager.default.createDirectory(atPath: folder.file("settings.json.lock"), withIntermediateDirectories: false)
        try store.set("dark", forKey: "theme")
        #expect(throws: StorageError.self) { try store.flush() }
        try FileManager.default.removeItem(atPath: folder.file("settings.json.lock"))
        // A retry the store scheduled may write first; either way one line says so.
        try store.flush()

        let line = try #require(LoggedLines.wait(store: store.storeName) { $0.text(StowageLogMetadata.event) == "writeRetriedAndSucceeded" })
        #expect(line.level == .notice)
        #expect((Int(line.text(StowageLogMetadata.detail("attempts")) ?? "") ?? 0) >= 2)
        #expect("\(line.message)".contains("no change was lost"), "\(line.message)")
    }

    /// The router's side of an outage, with events made as the PostgreSQL
    /// store makes them: that the store reports them is its own package's
    /// test, against a server it stops and starts (this package does not
    /// depend on postgres-nio).
    @Test func theRouterLogsAnOutageAsAWarningAndItsEndAsANotice() {
        let store = "PostgresStore(127.0.0.1:5432/app, schema stowage, namespace \"\(UUID())\")"
        StowageReport.handler(
            .event(
                StoreEvent(
                    StoreEvent.Kind("disconnected"), severity: .warning, storeName: store,
                    message: "The store lost the database: could not commit 1 key; they stay queued.",
                    error: StorageError(code: .storeFailure, reason: "connection refused", storeName: store)
                )
            ))
        StowageReport.handler(
            .event(
                StoreEvent(
                    StoreEvent.Kind("resynchronized"), severity: .notice, storeName: store, message: "The store reached the database again after 1.5 s.",
                    details: ["outage_seconds": "1.5", "changed_keys": "3"]
                )
            ))

        let lines = LoggedLines.about(store: store)
        #expect(lines.map(\.level) == [.warning, .notice])
        #expect(lines.map { $0.text(StowageLogMetadata.event) } == ["disconnected", "resynchronized"])
        #expect(lines.first?.text(StowageLogMetadata.errorCode) == "storeFailure")
        #expect(lines.last?.text(StowageLogMetadata.detail("outage_seconds")) == "1.5")
        #expect("\(lines.last?.message ?? "")" == "\(store): The store reached the database again after 1.5 s.")
    }
}
