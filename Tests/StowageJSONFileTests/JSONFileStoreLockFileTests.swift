import Foundation
@testable import StowageJSONFile
import StowageTestSupport
import Synchronization
import Testing

/// The lock file that makes writers in several processes take turns, and
/// what deleting it or planting a link in its place does.
struct JSONFileStoreLockFileTests {
    /// A store kept its descriptor of the lock file it first opened: after
    /// the file was deleted it went on locking the deleted file, which
    /// excludes nobody, and never made a new one for others to lock.
    @Test func aDeletedLockFileIsMadeAgainAndLockedByTheNextWrite() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try store.set(1, forKey: "count")
        try store.flush()
        let lockPath = directory.file("settings.json.lock")
        #expect(unlink(lockPath) == 0)

        try store.set(2, forKey: "count")
        try store.flush()
        #expect(FileManager.default.fileExists(atPath: lockPath), "the write locked a file no other writer can find")
    }

    /// Deleting the lock file while writers ran broke mutual exclusion: a
    /// process that opened the path after the delete locked a new file, and
    /// a shared counter lost increments.
    @Test func writersKeepTakingTurnsWhileTheLockFileIsDeletedAgainAndAgain() throws {
        let directory = TemporaryDirectory()
        let lockPath = directory.file("settings.json.lock")
        let done = Atomic<Bool>(false)
        let deletions = Atomic<Int>(0)
        let deleter = Thread {
            while !done.load(ordering: .relaxed) {
                if unlink(lockPath) == 0 { deletions.add(1, ordering: .relaxed) }
                usleep(1_000)  // paces the deletions; nothing waits on it
            }
        }
        deleter.start()
        let statuses = try WorkerProcess.jsonFile.runConcurrently(Array(repeating: ["increment", directory.file(), "counter", "200"], count: 4))
        done.store(true, ordering: .relaxed)
        #expect(statuses == [0, 0, 0, 0])
        #expect(deletions.load(ordering: .relaxed) > 0)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try store.reload()
        #expect(try store.value(forKey: "counter", as: Int.self) == 800)
    }

    /// A write gave up after the lock file turned out deleted 100 times in a
    /// row, however fast that went: four busy writers and a tool deleting the
    /// file every millisecond got there in CI, and a worker's write failed.
    @Test func aWriteOutlastsMoreThanAHundredDeletionsOfTheLockFile() throws {
        let directory = TemporaryDirectory()
        let fileSystem = FaultInjectingFileSystem(failing: .deleteLockFileOnceLocked, code: 0, times: 150)
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        try store.set(1, forKey: "count")
        try store.flush()

        let reopened = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        #expect(try reopened.value(forKey: "count", as: Int.self) == 1)
    }

    /// With a lock timeout, retries after a deleted lock file share its
    /// deadline: a write whose lock file is deleted every time it is locked
    /// ends in `.timedOut` naming the lock file, and its change stays pending.
    @Test func aLockTimeoutBoundsTheRetriesAfterDeletedLockFiles() throws {
        let directory = TemporaryDirectory()
        let fileSystem = FaultInjectingFileSystem(failing: .deleteLockFileOnceLocked, code: 0)
        let options = JSONFileStore.Options(changeDetection: .none, lockTimeout: .milliseconds(100))
        let store = JSONFileStore(path: directory.file(), options: options, fileSystem: fileSystem)
        try store.set(1, forKey: "count")

        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains(directory.file("settings.json.lock")) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("deleted or replaced") == true, "\(error?.message ?? "")")
        #expect(try store.value(forKey: "count", as: Int.self) == 1, "the change is still pending")
        #expect(!FileManager.default.fileExists(atPath: directory.file()), "nothing was written")
    }

    /// A link planted as the lock file was rightly not followed, but every
    /// write then failed with a message that did not say why.
    @Test func aSymbolicLinkInTheLockFilesPlaceIsRefusedNamingIt() throws {
        let directory = TemporaryDirectory()
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: directory.file("settings.json.lock"), withDestinationPath: elsewhere)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        try store.set(1, forKey: "count")

        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect(error?.message.contains("is a symbolic link") == true, "\(error?.message ?? "")")
        #expect(store.lastError?.message == error?.message)
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "the link is never followed")
        #expect(!FileManager.default.fileExists(atPath: directory.file()), "nothing is written without the lock")
    }

    /// Creating the folders of a new file made only the file's own folder
    /// durable, not the entries of the folders it had created in their parents.
    @Test func theFoldersAWriteCreatesAreMadeDurableInTheirParents() throws {
        let directory = TemporaryDirectory()
        let fileSystem = FaultInjectingFileSystem.healthy()
        let path = directory.file("new/deeper/settings.json")
        let store = JSONFileStore(path: path, options: .init(changeDetection: .none), fileSystem: fileSystem)
        try store.set(1, forKey: "count")
        try store.flush()

        let synchronized = Set(fileSystem.synchronizedDirectories.all)
        for folder in [directory.path, directory.file("new"), directory.file("new/deeper")] {
            #expect(synchronized.contains(folder), "\(folder) was not fsynced: \(synchronized.sorted())")
        }
    }
}
