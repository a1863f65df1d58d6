import Foundation
@testable import StowageJSONFile
import Testing
import StowageTestSupport

/// What a store's writes and rereads ask of the file system beyond what they
/// must: with several writers, each write rereads the file and then replaces
/// it while every other writer waits for the lock.
struct JSONFileStoreSystemCallTests {
    let directory = TemporaryDirectory()

    /// The folder the rename's check holds open is the one `fsync`ed: opening
    /// it again was two more system calls for every write.
    @Test func aWriteSynchronizesTheFolderItHoldsOpenForTheRename() throws {
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        for round in 1...3 {
            try store.set(round, forKey: "round")
            try store.flush()
        }
        #expect(fileSystem.synchronizedDirectories.all == Array(repeating: directory.path, count: 3))
        #expect(fileSystem.directoriesOpenedToSynchronize.all.isEmpty)
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 3)
    }

    /// A reread after another writer's write asks again whether the file may
    /// be written only when its owner or mode changed; then a file no longer
    /// writable makes the store read-only, with the reason.
    @Test func aRereadChecksWritabilityAgainOnlyWhenTheOwnerOrModeChanged() throws {
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        let other = JSONFileStore(path: directory.file(), options: .init(prettyPrinted: false, changeDetection: .none), fileSystem: POSIXFileSystem())
        try other.set(1, forKey: "theirs")
        try other.flush()
        try store.reload()
        let checksAfterFirstReread = fileSystem.writabilityChecks.all.count
        #expect(checksAfterFirstReread > 0, "a file seen for the first time is checked")

        try other.set(2, forKey: "theirs")
        try other.flush()
        try store.reload()
        #expect(try store.value(forKey: "theirs", as: Int.self) == 2)
        #expect(fileSystem.writabilityChecks.all.count == checksAfterFirstReread, "same owner and mode: no check")

        chmod(directory.file(), 0o444)
        fileSystem.unwritablePaths.withLock { _ = $0.insert(directory.file()) }
        try other.set(3, forKey: "theirs")
        try other.flush()
        try store.reload()
        #expect(fileSystem.writabilityChecks.all.count > checksAfterFirstReread, "a new mode is checked")
        #expect(try store.value(forKey: "theirs", as: Int.self) == 3)
        #expect(store.readOnlyReason?.contains("no permission to write") == true)
        #expect(throws: StorageError.self) { try store.set(4, forKey: "mine") }
    }
}
