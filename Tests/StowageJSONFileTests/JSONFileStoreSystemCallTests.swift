import Foundation
@testable import StowageJSONFile
import StowageLocking
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

    /// The folder is opened once, with the lock file, and kept: its `flock`
    /// guards both checks that the lock file is in place, and its `fsync`
    /// follows the rename. Opening and closing it for each check was four
    /// system calls a write.
    @Test func theLockFilesFolderIsOpenedOnceForEveryWrite() throws {
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        for round in 1...3 {
            try store.set(round, forKey: "round")
            try store.flush()
        }
        try store.reference(forKey: "round", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        try store.transaction { transaction in try transaction.set(5, forKey: "round") }
        #expect(fileSystem.openedDirectories.all.map(\.path) == [directory.path])
        #expect(fileSystem.synchronizedDirectories.all == Array(repeating: directory.path, count: 5))
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 5)
    }

    /// A write asks the settings file's status once: the reread's `lstat`,
    /// which tells a link from a file and gives the mode and owner the new
    /// file keeps. A `stat` for the reread and an `lstat` for the write were two.
    /// Through a symbolic link, the link is followed, and the file it points to keeps its mode.
    @Test func aWriteAsksTheSettingsFilesStatusOnce() throws {
        let fileSystem = FaultInjectingFileSystem.healthy()
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        try store.set(1, forKey: "round")
        try store.flush()
        chmod(directory.file(), 0o640)
        let before = fileSystem.statusQueries.all.count
        try store.set(2, forKey: "round")
        try store.flush()
        let queries = fileSystem.statusQueries.all.dropFirst(before).filter { $0.path == directory.file() }
        #expect(queries.map(\.followingSymlinks) == [false])
        var info = stat()
        #expect(stat(directory.file(), &info) == 0 && info.st_mode & 0o777 == 0o640)

        let link = directory.file("link.json")
        #expect(symlink(directory.file(), link) == 0)
        let throughLink = JSONFileStore(path: link, options: .init(changeDetection: .none), fileSystem: fileSystem)
        try throughLink.set(3, forKey: "round")
        try throughLink.flush()
        var linkInfo = stat()
        #expect(lstat(link, &linkInfo) == 0 && linkInfo.st_mode & S_IFMT == S_IFLNK)
        #expect(stat(directory.file(), &info) == 0 && info.st_mode & 0o777 == 0o640)
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 3)
    }

    /// A lock file deleted under a writer takes the folder kept with it along:
    /// both are closed and opened anew, so the next checks lock the folder the
    /// new lock file is in.
    @Test func aReplacedLockFileIsReopenedWithItsFolder() throws {
        let fileSystem = FaultInjectingFileSystem(failing: .deleteLockFileOnceLocked, code: ENOENT, times: 1)
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        try store.set(1, forKey: "round")
        try store.flush()
        let opened = fileSystem.openedDirectories.all
        #expect(opened.map(\.path) == [directory.path, directory.path])
        // The first folder was closed with the deleted lock file, before the second was opened.
        #expect(opened.first.map { fileSystem.closedDescriptors.all.contains($0.descriptor) } == true)
        #expect(fileSystem.synchronizedDirectories.all == [directory.path])
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 1)
    }

    /// Another writer may take the lock once the file is renamed into place:
    /// the `fsync` of the folder that makes the rename durable needs no lock,
    /// and it is a quarter of the time a write held it. The write itself (up
    /// to the rename) still holds it, and the folder is still synchronized
    /// before the flush returns. A compare-and-swap keeps the lock (see
    /// `JSONFileBacking.writeStagedChangeUnderLock(_:isCompareAndSwap:)`).
    @Test func aWriteLetsTheLockGoBeforeTheFoldersFsync() throws {
        let fileSystem = FaultInjectingFileSystem.healthy()
        let lockPath = directory.file() + ".lock"
        let lockIsFree = Collected<(step: String, free: Bool)>()
        @Sendable func record(_ step: String) {
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            // A descriptor of its own: `flock` excludes it even within this process.
            let free = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            lockIsFree.append((step, free))
        }
        fileSystem.whileSynchronizingFile.withLock { $0 = { _ in record("file") } }
        fileSystem.whileSynchronizingDirectory.withLock { $0 = { _ in record("folder") } }
        let store = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: fileSystem)
        for round in 1...2 {
            try store.set(round, forKey: "round")
            try store.flush()
        }
        #expect(lockIsFree.all.map(\.step) == ["file", "folder", "file", "folder"])
        #expect(lockIsFree.all.map(\.free) == [false, true, false, true])
        #expect(fileSystem.synchronizedDirectories.all.count == 2, "each flush returns after the folder's fsync")
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 2)

        // A transaction lets it go too; a compare-and-swap (`modify`) keeps it to the end.
        let previous = lockIsFree.all.count
        try store.transaction { transaction in try transaction.set(3, forKey: "round") }
        try store.reference(forKey: "round", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        #expect(lockIsFree.all.dropFirst(previous).map(\.step) == ["file", "folder", "file", "folder"])
        #expect(lockIsFree.all.dropFirst(previous).map(\.free) == [false, true, false, false])
        #expect(try store.reopened().value(forKey: "round", as: Int.self) == 4)
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
