import Foundation
@testable import StowageJSONFile
import StowageLocking
import Testing
import StowageTestSupport

/// Every step of a write fails in turn; the file must survive each failure.
struct JSONFileStoreFaultTests {
    static let writeSteps: [FaultInjectingFileSystem.Step] = [.createTemporaryFile, .write, .shortWrite, .fsync, .rename]
    static let codes: [Int32] = [EIO, ENOSPC]

    @Test(arguments: writeSteps, codes)
    func aFailedStepLeavesTheOriginalFileIntactAndReachesTheCaller(step: FaultInjectingFileSystem.Step, code: Int32) throws {
        let directory = TemporaryDirectory()
        let original = "{\n  \"kept\": \"original\"\n}\n"
        writeFile(directory.file(), original)
        let store = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: step, code: code))
        try store.set("new", forKey: "kept")

        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect(error?.code == .storeFailure)
        #expect((error?.underlyingError as? SystemCallError)?.code == code)
        #expect(store.lastError?.code == .storeFailure)
        #expect(String(decoding: fileBytes(directory.file()) ?? [], as: UTF8.self) == original)
        #expect(directory.contents() == ["settings.json", "settings.json.lock"], "no temporary file may be left behind")
        #expect(try store.value(forKey: "kept", as: String.self) == "new", "the change stays pending")

        // The change is still pending: a store on a healthy file system writes it afresh.
        let healthy = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: POSIXFileSystem())
        try healthy.set(try store.value(forKey: "kept", as: String.self) ?? "", forKey: "kept")
        try healthy.flush()
        #expect(try healthy.reopened().value(forKey: "kept", as: String.self) == "new")
    }

    /// A multi-key swap whose disk write fails is taken back, and the keys'
    /// references are told, so none keeps the value it may have read meanwhile.
    @Test func aMultiKeySwapWhoseWriteFailsIsTakenBackAndTellsReferences() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"old": 1}"#)
        let store = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: .rename, code: EIO))
        let old = store.reference(forKey: "old", as: Int.self), new = store.reference(forKey: "new", as: Int.self)
        #expect(old.value == 1 && new.value == nil)
        #expect(throws: StorageError.self) { try store.migrateValue(from: "old", to: "new") }
        #expect((try store.snapshot()).entries == ["old": 1])
        #expect(old.value == 1)
        #expect(new.value == nil)
    }

    /// A `modify` whose write failed stayed pending as a value, so the next
    /// write wrote it over what other processes had written meanwhile: their
    /// increments were lost, though the `modify` had thrown. It is taken back.
    @Test(arguments: [FaultInjectingFileSystem.Step.createTemporaryFile, .write, .fsync, .rename])
    func aModifyOrTransactionWhoseWriteFailsIsTakenBackSoNoOtherWriteIsLost(step: FaultInjectingFileSystem.Step) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"count": 5, "note": "kept"}"#)
        let failing = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: step, code: EIO))
        let count = failing.reference(forKey: "count", as: Int.self)
        try failing.set("pending", forKey: "plain")

        let error = #expect(throws: StorageError.self) { try count.modify { $0 = ($0 ?? 0) + 1 } }
        #expect(error?.code == .storeFailure)
        #expect(count.value == 5)
        #expect(throws: StorageError.self) {
            try failing.transaction { transaction in
                try transaction.set(100, forKey: "count")
                try transaction.set("changed", forKey: "note")
            }
        }
        #expect(count.value == 5)
        #expect(try failing.value(forKey: "note", as: String.self) == "kept")
        // A plain write made before is not taken back: it is applied, and not durable yet.
        #expect(try failing.value(forKey: "plain", as: String.self) == "pending")

        // Another process counts twice; this store, reading the file again, sees both increments.
        let healthy = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: POSIXFileSystem())
        for _ in 0..<2 { try healthy.reference(forKey: "count", as: Int.self).modify { $0 = ($0 ?? 0) + 1 } }
        try failing.reload()
        #expect(count.value == 7)
        #expect(try failing.value(forKey: "plain", as: String.self) == "pending")
        #expect(String(decoding: fileBytes(directory.file()) ?? [], as: UTF8.self).contains("\"count\": 7"))
    }

    /// Readers see a compare-and-swap or a transaction only once the file
    /// holds it. Both used to be applied before the write and taken back when
    /// the write had to start over, here because another program deleted the
    /// lock file meanwhile: a thread of the soak test read a counter at 960,
    /// then at 959.
    @Test func readersSeeASwapOrATransactionOnlyOnceTheFileHoldsIt() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"count": 5}"#)
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        let count = store.reference(forKey: "count", as: Int.self)
        let seenDuringWrites = Collected<Int?>()
        let writes = Locked(0)
        let lockPath = directory.file() + ".lock"
        fileSystem.whileSynchronizingFile.withLock { hook in
            hook = { _ in
                seenDuringWrites.append(count.value)
                // The first write of each change finds its lock file gone, and starts over under a new one.
                let write = writes.withLock { count in
                    count += 1
                    return count
                }
                if write % 2 == 1 { POSIXFileSystem().removeFile(at: lockPath) }
            }
        }
        try count.modify { $0 = ($0 ?? 0) + 1 }
        #expect(count.value == 6)
        try store.transaction { transaction in
            let current = try transaction.value(forKey: "count", as: Int.self) ?? 0
            try transaction.set(current * 10, forKey: "count")
        }
        #expect(seenDuringWrites.all == [5, 5, 6, 6], "a reader saw a change before the file held it")
        #expect(count.value == 60)
        #expect(try store.reopened().value(forKey: "count", as: Int.self) == 60)
    }

    /// When only the folder's `fsync` failed, the file already holds the
    /// change: other processes may read it, so it is not taken back.
    @Test func aModifyWhoseFolderFsyncFailsKeepsTheChangeTheFileHolds() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"count": 5}"#)
        let failing = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: .directoryFsync, code: EIO))
        let count = failing.reference(forKey: "count", as: Int.self)
        #expect(throws: StorageError.self) { try count.modify { $0 = ($0 ?? 0) + 1 } }
        #expect(count.value == 6)
        let healthy = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: POSIXFileSystem())
        #expect(try healthy.value(forKey: "count", as: Int.self) == 6)
    }

    /// A background write that failed left the changes waiting for the next
    /// write, `flush()` or the exit; it is tried again on its own, after a
    /// growing wait, and only the first failure is reported.
    @Test func aFailedBackgroundWriteIsTriedAgainUntilItSucceeds() async throws {
        ReportedErrors.install()
        ReportedEvents.install()
        let directory = TemporaryDirectory()
        let failingThrice = FaultInjectingFileSystem(failing: .rename, code: ENOSPC, times: 3)
        let store = JSONFileStore(path: directory.file(), options: .init(writeDelay: .milliseconds(10), changeDetection: .none), fileSystem: failingThrice)
        // A handle of its own on the real file sees the write land, after the three failed tries.
        let watcher = JSONFileStore(path: directory.file(), options: .init(), fileSystem: POSIXFileSystem())
        let seen = Arrivals<String?>()
        let token = watcher.reference(forKey: "note", as: String.self).observe { seen.receive($0) }
        defer { token.cancel() }
        try store.set("kept", forKey: "note")
        #expect(await seen.wait(for: "kept", timeout: .seconds(60)), "the write was never retried until it succeeded")
        let reopened = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: POSIXFileSystem())
        #expect(try reopened.value(forKey: "note", as: String.self) == "kept")
        #expect(ReportedErrors.mentioning(directory.file()).count == 1)
        let recovered = try #require(ReportedEvents.wait(for: .writeRetriedAndSucceeded, mentioning: directory.file()))
        #expect(recovered.details["attempts"] == "4", "three failed tries, then the one that succeeded")
        #expect(recovered.severity == .notice)
        #expect(ReportedErrors.mentioning(directory.file()).first?.storeName == "JSONFileStore(\(directory.file()))")
        #expect(JSONFileBacking.retryDelay(afterFailures: 1) == .milliseconds(250))
        #expect(JSONFileBacking.retryDelay(afterFailures: 3) == .seconds(1))
        #expect(JSONFileBacking.retryDelay(afterFailures: 40) == .seconds(30))
    }

    @Test(arguments: codes)
    func aFailedDirectoryFsyncLeavesAWholeFileAndKeepsTheChangesPending(code: Int32) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"kept": "original"}"#)
        let store = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: .directoryFsync, code: code))
        try store.set("new", forKey: "kept")
        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect((error?.underlyingError as? SystemCallError)?.code == code)
        // The rename happened before the directory's fsync failed: the file is whole, old or new, never torn.
        let value = try store.reopened().value(forKey: "kept", as: String.self)
        #expect(value == "new" || value == "original")
        #expect(directory.contents() == ["settings.json", "settings.json.lock"])
        // Not durable, so flush keeps failing rather than claiming success.
        #expect(throws: StorageError.self) { try store.flush() }
    }

    @Test func aFileThatCanNotBeReadMakesTheStoreReadOnly() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"kept": 1}"#)
        let store = JSONFileStore(
            path: directory.file(), options: .init(changeDetection: .none), fileSystem: FaultInjectingFileSystem(failing: .read, code: EACCES))
        #expect(store.readOnlyReason?.contains("no permission to read") == true)
        let error = #expect(throws: StorageError.self) { try store.set(2, forKey: "kept") }
        #expect(error?.code == .readOnly)
        #expect(error?.key == "kept")
        #expect(String(decoding: fileBytes(directory.file()) ?? [], as: UTF8.self) == #"{"kept": 1}"#)
    }

    @Test func aPlantedSymbolicLinkAtTheTemporaryPathIsNeverFollowed() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file("victim"), "precious")
        let planted = directory.file(".settings.json.tmp-planted")
        symlink(directory.file("victim"), planted)
        #expect(throws: SystemCallError.self) { try POSIXFileSystem().createNewFile(at: planted, permissions: 0o600) }
        #expect(String(decoding: fileBytes(directory.file("victim")) ?? [], as: UTF8.self) == "precious")
    }
}
