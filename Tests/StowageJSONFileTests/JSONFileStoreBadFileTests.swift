import Foundation
import StowageJSONFile
import Testing
import StowageTestSupport

/// Files the store did not write, or can not use.
struct JSONFileStoreBadFileTests {
    static let notJSON: [(name: String, bytes: [UInt8])] = [
        ("truncated", Array(#"{"theme": "dark", "volume": 7"#.utf8)),
        ("binary", [0x00, 0xFF, 0x13, 0x37, 0x00, 0x01]),
        ("empty", []),
        ("invalid UTF-8", Array(#"{"name": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
        ("too deep", Array(String(repeating: "[", count: 600).utf8) + Array(String(repeating: "]", count: 600).utf8)),
    ]

    @Test(arguments: notJSON.indices)
    func aFileThatIsNotJSONIsMovedAsideAndTheStoreStartsEmpty(index: Int) throws {
        ReportedEvents.install()
        let (name, bytes) = Self.notJSON[index]
        let directory = TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory.file(), contents: Data(bytes))
        let store = JSONFileStore(url: directory.url())

        #expect((try store.snapshot()).entries.isEmpty, "\(name)")
        let error = try #require(store.lastError, "\(name)")
        #expect(error.code == .corruptFile)
        let backups = directory.contents().filter { $0.hasPrefix("settings.json.corrupt-") }
        #expect(backups.count == 1, "\(name): \(directory.contents())")
        let backup = try #require(backups.first)
        #expect(error.message.contains(directory.file(backup)), "the error must say where the backup is: \(error.message)")
        #expect(fileBytes(directory.file(backup)) == bytes, "the backup keeps the bytes as they were")
        #expect(store.readOnlyReason == nil)
        // The operator hears of it as an event naming the store, the file and the backup.
        let event = try #require(ReportedEvents.of(.fileMovedAside, mentioning: directory.file()).first, "\(name)")
        #expect(event.severity == .error)
        #expect(event.storeName == "JSONFileStore(\(directory.file()))")
        #expect(event.details["backup"] == directory.file(backup))
        #expect(event.details["path"] == directory.file())
        #expect(event.error?.code == .corruptFile)

        try store.set("fresh", forKey: "start")
        try store.flush()
        #expect(try store.reopened().value(forKey: "start", as: String.self) == "fresh")
    }

    @Test(arguments: ["[1, 2]", "\"text\"", "42", "null"])
    func validJSONThatIsNotAnObjectMakesTheStoreReadOnly(text: String) throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), text)
        let store = JSONFileStore(url: directory.url())
        #expect(store.readOnlyReason?.contains("not a JSON object") == true)
        let error = #expect(throws: StorageError.self) { try store.set(1, forKey: "key") }
        #expect(error?.code == .readOnly)
        #expect(error?.message.contains("not a JSON object") == true)
        #expect(String(decoding: fileBytes(directory.file()) ?? [], as: UTF8.self) == text, "the file is never overwritten")
    }

    @Test func aDirectoryInTheFilesPlaceMakesTheStoreReadOnly() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file(), withIntermediateDirectories: false)
        let store = JSONFileStore(url: directory.url())
        #expect(store.readOnlyReason?.contains("directory") == true)
        #expect(throws: StorageError.self) { try store.set(1, forKey: "key") }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.file(), isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func aFileThatTurnsIntoANonObjectIsNotOverwrittenByPendingChanges() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url(), options: .init(writeDelay: .seconds(60), changeDetection: .none))
        try store.set(1, forKey: "x")
        writeFile(directory.file(), "[1, 2]")
        let error = #expect(throws: StorageError.self) { try store.flush() }
        #expect(error?.code == .readOnly)
        #expect(String(decoding: fileBytes(directory.file()) ?? [], as: UTF8.self) == "[1, 2]")
    }

    @Test func theStoreBecomesWritableOnceTheProblemIsGone() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file(), withIntermediateDirectories: false)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        #expect(store.readOnlyReason != nil)
        try FileManager.default.removeItem(atPath: directory.file())
        try store.reload()
        #expect(store.readOnlyReason == nil)
        try store.set(1, forKey: "x")
        try store.flush()
        #expect(try store.reopened().value(forKey: "x", as: Int.self) == 1)
    }

    @Test func theSetterRefusesWhatTheFileCouldNotHold() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url(), options: .init(keyLayout: .nested(), maximumDepth: 3))
        try store.set([[1]], forKey: "fits")
        #expect(throws: StorageError.self) { try store.set([[[1]]], forKey: "deep") }
        #expect(throws: StorageError.self) { try store.set([[1]], forKey: "a.deep") }
        try store.flush()
        #expect(try store.reopened().value(forKey: "fits", as: [[Int]].self) == [[1]])
    }

    /// A hundred thousand under a sanitizer (see `TestScale`).
    @Test func aMillionKeysOpen() throws {
        let directory = TemporaryDirectory()
        let count = TestScale.choose(full: 1_000_000, sanitized: 100_000)
        var text = "{"
        text.reserveCapacity(count * 24)
        for index in 0..<count { text += (index == 0 ? "" : ",") + "\"key\(index)\":\(index)" }
        text += "}"
        writeFile(directory.file(), text)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        #expect(store.lastError == nil)
        #expect((try store.snapshot()).entries.count == count)
        #expect(try store.value(forKey: "key\(count - 1)", as: Int.self) == count - 1)
    }

    /// Ten megabytes under a sanitizer (see `TestScale`).
    @Test func aHundredMegabyteFileOpens() throws {
        let directory = TemporaryDirectory()
        let blobs = TestScale.choose(full: 100, sanitized: 10)
        let chunk = String(repeating: "x", count: 1_000_000)
        var text = "{"
        for index in 0..<blobs { text += (index == 0 ? "" : ",") + "\"blob\(index)\":\"\(chunk)\"" }
        text += "}"
        writeFile(directory.file(), text)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
        #expect(store.lastError == nil)
        #expect(try store.value(forKey: "blob\(blobs - 1)", as: String.self)?.count == 1_000_000)
    }
}
