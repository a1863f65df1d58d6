import Foundation
import StowageJSON
import StowageJSONFile
import Testing
import StowageTestSupport

/// When writes reach the disk, with which permissions, and through links.
struct JSONFileStoreWritingTests {
    let directory = TemporaryDirectory()

    @Test func settersReturnBeforeWritingAndFlushMakesThemDurable() throws {
        let store = JSONFileStore(url: directory.url(), options: .init(writeDelay: .seconds(30)))
        for count in 1...100 { try store.set(count, forKey: "count") }
        #expect(fileBytes(directory.file()) == nil, "a setter must not write the file")
        #expect(try store.value(forKey: "count", as: Int.self) == 100)
        try store.flush()
        #expect(try store.reopened().value(forKey: "count", as: Int.self) == 100)
    }

    @Test func backgroundWritesHappenWithinTheDelay() async throws {
        let store = JSONFileStore(url: directory.url(), options: .init(writeDelay: .milliseconds(20)))
        // Another handle on the file (other options, so not sharing the writer's cache) sees the write land.
        let watcher = JSONFileStore(url: directory.url(), options: .init(prettyPrinted: false))
        let seen = Arrivals<String?>()
        let token = watcher.reference(forKey: "when", as: String.self).observe { seen.receive($0) }
        defer { token.cancel() }
        try store.set("soon", forKey: "when")
        #expect(await seen.wait(for: "soon"), "the background write never reached the file")
        #expect(try store.reopened().value(forKey: "when", as: String.self) == "soon")
    }

    @Test func immediateDurabilityWritesBeforeTheSetterReturns() throws {
        let store = JSONFileStore(url: directory.url(), options: .init(durability: .immediate))
        try store.set(42, forKey: "answer")
        #expect(try store.reopened().value(forKey: "answer", as: Int.self) == 42)
    }

    @Test func aNormalExitWritesPendingChanges() throws {
        let result = try WorkerProcess.jsonFile.run(["set-and-exit", directory.file(), "farewell", "written at exit"])
        #expect(result.status == 0)
        #expect(try JSONFileStore(url: directory.url()).value(forKey: "farewell", as: String.self) == "written at exit")
    }

    @Test func createsTheDirectoryAndFileWithPrivatePermissionsWhateverTheUmask() throws {
        let previous = umask(0)
        defer { umask(previous) }
        let path = directory.path + "/nested/deeper/settings.json"
        let store = JSONFileStore(url: URL(filePath: path))
        try store.set(true, forKey: "created")
        try store.flush()
        #expect(permissions(of: path) == 0o600)
        #expect(permissions(of: directory.path + "/nested/deeper") == 0o700)
        #expect(permissions(of: directory.path + "/nested") == 0o700)
    }

    /// 0640 passes the umask unchanged; 0666 is narrowed by it when the
    /// temporary file is created, and must be set afterwards.
    @Test(arguments: [0o640, 0o666] as [mode_t])
    func keepsTheModeOfAnExistingFile(mode: mode_t) throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        writeFile(directory.file(), "{}")
        chmod(directory.file(), mode)
        let store = JSONFileStore(url: directory.url())
        try store.set(1, forKey: "a")
        try store.flush()
        #expect(permissions(of: directory.file()) == mode)
    }

    /// Only the superuser may give a file to someone else, so only it can
    /// show that the owner is kept; another user's write keeps the owner by
    /// being that owner.
    @Test(.enabled(if: geteuid() == 0, "giving a file to another owner takes the superuser"))
    func keepsTheOwnerOfAnExistingFile() throws {
        writeFile(directory.file(), "{}")
        chown(directory.file(), 4321, 4322)
        let store = JSONFileStore(url: directory.url())
        try store.set(1, forKey: "a")
        try store.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file())
        #expect(attributes[.ownerAccountID] as? Int == 4321)
        #expect(attributes[.groupOwnerAccountID] as? Int == 4322)
        #expect(try store.reopened().value(forKey: "a", as: Int.self) == 1)
    }

    /// A clean-up that deletes the whole folder while the program runs (say
    /// `rm -rf ~/.config/app`) takes the lock file the store holds with it;
    /// the next write makes the folder, the lock file and the file again. As
    /// when only the file is deleted, what it held is gone, and the file holds
    /// the changes made since.
    @Test func aWriteAfterTheFolderIsDeletedMakesItAgain() throws {
        let folder = directory.path + "/app"
        let store = JSONFileStore(url: URL(filePath: folder + "/settings.json"), options: .init(changeDetection: .none))
        try store.set(1, forKey: "first")
        try store.flush()
        try FileManager.default.removeItem(atPath: folder)
        try store.set(2, forKey: "second")
        try store.flush()
        let reopened = JSONFileStore(url: URL(filePath: folder + "/settings.json"), options: .init(changeDetection: .none))
        #expect(try reopened.value(forKey: "second", as: Int.self) == 2)
        #expect(try reopened.value(forKey: "first", as: Int.self) == nil)
        #expect(permissions(of: folder) == 0o700)
        #expect(FileManager.default.fileExists(atPath: folder + "/settings.json.lock"))
    }

    @Test func replacesTheTargetOfASymbolicLinkAndKeepsTheLink() throws {
        writeFile(directory.file("real.json"), #"{"kept": 1}"#)
        symlink(directory.file("real.json"), directory.file("link.json"))
        let store = JSONFileStore(url: directory.url("link.json"))
        try store.set(2, forKey: "added")
        try store.flush()
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: directory.file("link.json"))) == directory.file("real.json"))
        let real = JSONFileStore(url: directory.url("real.json"), options: .init(changeDetection: .none))
        #expect(try real.value(forKey: "kept", as: Int.self) == 1)
        #expect(try real.value(forKey: "added", as: Int.self) == 2)
    }

    @Test func aWriteAfterAnotherWritersChangeKeepsThatChange() throws {
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        for index in 0..<200 { try store.set(index, forKey: "key\(index)") }
        try store.flush()
        try store.set(-1, forKey: "key0")
        try store.flush()  // formats only the changed member from here on
        let other = JSONFileStore(url: directory.url(), options: .init(prettyPrinted: false, changeDetection: .none))
        try other.set("theirs", forKey: "key5")
        try other.set(true, forKey: "added")
        try other.removeValue(forKey: "key7")  // as many keys as before: only the contents differ
        try other.flush()
        try store.set(-2, forKey: "key1")
        try store.flush()
        let onDisk = try JSONParser().parse(fileBytes(directory.file()) ?? [])
        guard case .dictionary(let members) = onDisk else {
            Issue.record("the file is not an object")
            return
        }
        #expect(members.count == 200)
        #expect(members["key7"] == nil)
        #expect(members["key0"] == -1)
        #expect(members["key1"] == -2)
        #expect(members["key5"] == "theirs")
        #expect(members["added"] == true)
        #expect(members["key199"] == 199)
        #expect(fileBytes(directory.file()) == (try JSONSerializer().serialize(onDisk)), "pretty-printed again and sorted")
    }

    @Test func storesOnTheSameFileShareOneState() async throws {
        let first = JSONFileStore(url: directory.url())
        let second = JSONFileStore(url: URL(filePath: directory.path + "/./settings.json"))
        let observed = second.reference(forKey: "shared", as: Int.self)
        #expect(try observed.read() == nil)
        try first.set(5, forKey: "shared")
        #expect(second.storedValue(forKey: "shared", .granted) == 5)
        #expect(try observed.read() == 5, "a reference of the other store object must hear of the write")
    }

    @Test func transactionsApplySeveralKeysTogether() throws {
        let store = JSONFileStore(url: directory.url())
        try store.set(10, forKey: "from")
        let moved = try store.transaction { transaction in
            let from = try transaction.value(forKey: "from", as: Int.self) ?? 0
            try transaction.set(from - 3, forKey: "from")
            try transaction.set(3, forKey: "to")
            return 3
        }
        #expect(moved == 3)
        let reopened = store.reopened()
        #expect(try reopened.value(forKey: "from", as: Int.self) == 7)
        #expect(try reopened.value(forKey: "to", as: Int.self) == 3)
    }

    @Test func aTransactionThatThrowsChangesNothing() throws {
        struct Abort: Error {}
        let store = JSONFileStore(url: directory.url())
        try store.set(1, forKey: "value")
        #expect(throws: Abort.self) {
            try store.transaction { transaction in
                try transaction.set(2, forKey: "value")
                throw Abort()
            }
        }
        #expect(try store.value(forKey: "value", as: Int.self) == 1)
    }

    @Test func aTransactionThatCallsBackIntoItsStoreFailsInsteadOfDeadlocking() throws {
        let store = JSONFileStore(url: directory.url())
        let error = #expect(throws: StorageError.self) {
            try store.transaction { _ in try store.flush() }
        }
        #expect(error?.message.contains("transaction") == true)
    }

    @Test func theDefaultLocationFollowsXDGConfigHome() throws {
        let result = try WorkerProcess.jsonFile.run(["default-location"], environment: ["XDG_CONFIG_HOME": "/srv/config", "HOME": "/home/someone"])
        #expect(result.output == "/srv/config/StowageJSONFileWorker/settings.json\n")
        let fallback = try WorkerProcess.jsonFile.run(["default-location"], environment: ["HOME": "/home/someone"])
        #expect(fallback.output == "/home/someone/.config/StowageJSONFileWorker/settings.json\n")
    }
}

extension JSONFileStoreWritingTests {
    /// A background write scheduled before a flush found nothing left to
    /// write, yet took the lock and reread the file: a file another program
    /// was halfway through writing without the lock did not parse, was moved
    /// aside as corrupt, and that program's edit was lost (seen as a rare
    /// failure of `AppWritesReachObserversTests.jsonFileStore` under ASan).
    @Test func aScheduledWriteWithNothingLeftToWriteLeavesTheFileAlone() throws {
        let directory = TemporaryDirectory()
        let url = directory.url("settings.json")
        let store = JSONFileStore(url: url, options: .init(writeDelay: .milliseconds(500), changeDetection: .none))
        try store.set(1, forKey: "count")  // schedules a background write half a second later
        try store.flush()  // writes the change now
        let halfWritten = #"{"count": "#  // another program, halfway through a write of its own
        try Data(halfWritten.utf8).write(to: url)
        store.waitForScheduledWrites()
        #expect(try String(contentsOf: url, encoding: .utf8) == halfWritten)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("corrupt") }.isEmpty)
    }
}
