import Foundation
@testable import StowageJSONFile
import StowageLocking
import StowageTestSupport
import Testing

/// After a fault clears, pending changes reach the file with no call from the
/// user, and each failure is kept and reported as the guide says.
struct JSONFileStoreRecoveryTests {
    static let lockFaults: [(step: FaultInjectingFileSystem.Step, code: Int32)] = [(.lock, EIO), (.openLockFile, EMFILE)]

    /// A failure before the write step (taking the lock) left the store
    /// believing a background write was on its way: neither a retry nor any
    /// later setter's change reached the file until someone called `flush()`.
    @Test(arguments: lockFaults.indices)
    func aWriteThatFailsToTakeTheLockIsTriedAgainOnItsOwn(index: Int) throws {
        ReportedErrors.install()
        let (step, code) = Self.lockFaults[index]
        let directory = TemporaryDirectory()
        let fileSystem = FaultInjectingFileSystem(failing: step, code: code, times: 1)
        let store = JSONFileStore(path: directory.file(), options: .init(writeDelay: .milliseconds(1), changeDetection: .none), fileSystem: fileSystem)

        try store.set("first", forKey: "before")
        #expect(ReportedErrors.waitForReport(mentioning: directory.file("settings.json.lock")), "the failed background write is reported")
        try store.set("second", forKey: "after")
        #expect(fileSystem.waitForRename(), "no write reached the file after the fault cleared")
        let reread = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try reread.reload()
        #expect(try reread.value(forKey: "before", as: String.self) == "first")
        // The retry usually carries the later change too; a slow machine may leave it to a write of its own.
        if try reread.value(forKey: "after", as: String.self) == nil {
            #expect(fileSystem.waitForRename(), "the later change never reached the file")
            try reread.reload()
        }
        #expect(try reread.value(forKey: "after", as: String.self) == "second")
    }

    /// `flush()` threw a lock failure that `lastError` did not keep.
    @Test(arguments: lockFaults.indices)
    func aLockFailureIsKeptInLastError(index: Int) throws {
        let (step, code) = Self.lockFaults[index]
        let directory = TemporaryDirectory()
        let store = JSONFileStore(
            path: directory.file(), options: .init(writeDelay: .seconds(60), changeDetection: .none),
            fileSystem: FaultInjectingFileSystem(failing: step, code: code, times: 1))
        try store.set(1, forKey: "count")
        let thrown = #expect(throws: StorageError.self) { try store.flush() }
        let kept = try #require(store.lastError)
        #expect(kept.message == thrown?.message)
        #expect((kept.underlyingError as? SystemCallError)?.code == code)
        try store.flush()
        #expect(try store.reopened().value(forKey: "count", as: Int.self) == 1)
    }

    /// The file briefly held a JSON array while a change was pending: the
    /// background write found the store read-only and none was tried again;
    /// and the reason was reported twice, by the reread and by the failed write.
    @Test func changesPendingThroughAReadOnlyEpisodeReachTheFileOnceItEndsAndTheReasonIsReportedOnce() throws {
        ReportedEvents.install()
        ReportedErrors.install()
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"kept": 1}"#)
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(writeDelay: .milliseconds(1), changeDetection: .none), fileSystem: fileSystem)
        let reason = "\(directory.file()) holds an array"

        writeFile(directory.file(), "[1, 2, 3]")
        try store.set("pending", forKey: "change")
        let madeReadOnly = try #require(ReportedEvents.wait(for: .madeReadOnly, mentioning: reason))
        #expect(madeReadOnly.severity == .error && madeReadOnly.error?.code == .readOnly)
        #expect(madeReadOnly.storeName == "JSONFileStore(\(directory.file()))")
        writeFile(directory.file(), #"{"kept": 2}"#)

        #expect(fileSystem.waitForRename(), "the pending change never reached the file")
        let reread = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try reread.reload()
        #expect(try reread.value(forKey: "change", as: String.self) == "pending")
        #expect(try reread.value(forKey: "kept", as: Int.self) == 2)
        #expect(ReportedEvents.of(.madeReadOnly, mentioning: reason).count == 1, "\(ReportedEvents.of(.madeReadOnly, mentioning: reason))")
        // Told once the write that ends the episode lets go of the file's lock.
        #expect(ReportedEvents.wait(for: .writableAgain, mentioning: directory.file()) != nil, "the end of the episode is told too")
        #expect(ReportedEvents.of(.writableAgain, mentioning: directory.file()).count == 1)
        #expect(ReportedErrors.mentioning(reason).isEmpty, "told as an event, not also as an error")
        #expect(
            ReportedEvents.of(.writeRetriedAndSucceeded, mentioning: directory.file()).isEmpty,
            "writes refused while read-only are not failed writes to tell of: writableAgain says it")
    }

    /// A file that is not JSON and can not be locked (a read-only file
    /// system can not hold a new lock file) could not be moved aside, yet the
    /// store accepted writes that every flush then failed to save.
    @Test func aCorruptFileThatCanNotBeLockedMakesTheStoreReadOnlyAndStaysUntouched() throws {
        let directory = TemporaryDirectory()
        let bytes = Array("{ not json".utf8)
        _ = FileManager.default.createFile(atPath: directory.file(), contents: Data(bytes))
        let store = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none),
            fileSystem: FaultInjectingFileSystem(failing: .openLockFile, code: EROFS))

        let reason = try #require(store.readOnlyReason)
        #expect(reason.contains("not valid JSON") && reason.contains("left untouched"), "\(reason)")
        let error = #expect(throws: StorageError.self) { try store.set(1, forKey: "count") }
        #expect(error?.code == .readOnly)
        #expect(fileBytes(directory.file()) == bytes)
        #expect(directory.contents() == ["settings.json"], "nothing is moved aside or created")
    }
}

/// A program's handler runs with no lock of the store's held, so it may use
/// the store: an event met while the file gate was held (here, by a reload)
/// reached the handler under the gate, and a flush from the handler failed
/// as a call back into the store's own flush.
struct JSONFileStoreEventHandlerTests {
    @Test func aHandlerMayUseTheStoreThatReportedTheEvent() throws {
        ReportedEvents.install()
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"kept": 1}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        let outcome = Locked<String?>(nil)
        ReportedEvents.whenReported(mentioning: directory.file()) { event in
            guard event.kind == .madeReadOnly else { return }
            do {
                try store.reload()
                outcome.withLock { $0 = "reloaded" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        }
        writeFile(directory.file(), "[1, 2, 3]")
        try store.reload()
        #expect(ReportedEvents.of(.madeReadOnly, mentioning: directory.file()).count == 1)
        #expect(outcome.withLock { $0 } == "reloaded", "\(outcome.withLock { $0 } ?? "the handler did not run")")
    }
}
