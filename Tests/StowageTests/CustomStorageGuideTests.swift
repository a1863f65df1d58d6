import Foundation
import Stowage
import StowageLocking
import StowageTesting
import Testing

// The store of Guides/CustomStorage.md, verbatim: `guideShowsThisStoreVerbatim`
// fails when the two drift apart.
// BEGIN GUIDE CODE
/// Keeps every value in one JSON file, rewritten after each change.
final class JSONDictionaryFileStore: UnderlyingStorage {
    let fileURL: URL
    private let entries: Locked<[String: StoredValue]>

    /// Opens the file; a missing file is an empty store, a corrupt one an error.
    init(fileURL: URL) throws {
        self.fileURL = fileURL
        let saved = try (try? Data(contentsOf: fileURL)).map { try JSONDecoder().decode([String: StoredValue].self, from: $0) }
        entries = Locked(saved ?? [:])
    }

    func storedValue(forKey key: String, _: BackendAccess) -> StoredValue? {
        entries.withLock { $0[key] }
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _: BackendAccess) throws {
        try update { $0[key] = value }
    }

    func removeStoredValue(forKey key: String, _: BackendAccess) throws {
        try update { $0[key] = nil }
    }

    /// Applies `change` only if the file could be written, so memory and disk agree.
    private func update(_ change: (inout [String: StoredValue]) -> Void) throws {
        try entries.withLock { entries in
            var updated = entries
            change(&updated)
            try JSONEncoder().encode(updated).write(to: fileURL, options: .atomic)
            entries = updated
        }
    }
}

extension JSONDictionaryFileStore {
    /// Rereads the file and tells observers which keys changed.
    func reload() throws {
        let data = try Data(contentsOf: fileURL)
        let fresh = try JSONDecoder().decode([String: StoredValue].self, from: data)
        let previous = entries.withLock { entries in
            defer { entries = fresh }
            return entries
        }
        let changed = Set(previous.keys).union(fresh.keys).filter { previous[$0] != fresh[$0] }
        announceChanges(forKeys: changed)
    }
}
// END GUIDE CODE

struct CustomStorageGuideTests {
    @Test func guideShowsThisStoreVerbatim() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let source = try String(contentsOf: testFile, encoding: .utf8)
        let guide = try String(
            contentsOf: testFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Guides/CustomStorage.md"),
            encoding: .utf8
        )
        let start = try #require(source.range(of: "// BEGIN GUIDE CODE\n"))
        let end = try #require(source.range(of: "\n// END GUIDE CODE"))
        let pieces = source[start.upperBound..<end.lowerBound].components(separatedBy: "\n\nextension JSONDictionaryFileStore {")
        #expect(pieces.count == 2)
        #expect(guide.contains(pieces[0]), "the store in the guide differs from the one tested here")
        #expect(guide.contains("extension JSONDictionaryFileStore {" + pieces[1]), "reload() in the guide differs")
    }

    /// A fresh directory per test, so file tests never see each other's files.
    private static func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-guide-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func guideStorePassesTheConformanceSuite() async throws {
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = StorageConformanceSuite<JSONDictionaryFileStore>.Options(
            externalChange: { store, key, value in
                // Another program edits the file; the store learns of it on reload.
                var entries = try JSONDecoder().decode([String: StoredValue].self, from: Data(contentsOf: store.fileURL))
                entries[key] = value
                try JSONEncoder().encode(entries).write(to: store.fileURL)
                try store.reload()
            },
            // A fresh instance rereads the file: each value makes the trip through JSONEncoder and JSONDecoder.
            reopen: { try JSONDictionaryFileStore(fileURL: $0.fileURL) },
            supportsNonFiniteDoubles: false,
            iterationsPerTask: 50
        )
        let suite = StorageConformanceSuite(options: options) {
            let store = try JSONDictionaryFileStore(fileURL: directory.appendingPathComponent("\(UUID()).json"))
            try store.set("created", forKey: "conformance.fileExists")
            try store.removeValue(forKey: "conformance.fileExists")
            return store
        }
        let report = try await suite.run()
        #expect(report.skipped.isEmpty)
    }

    @Test func guideStoreKeepsValuesAcrossInstances() throws {
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("settings.json")
        try JSONDictionaryFileStore(fileURL: url).set(41, forKey: "launchCount")
        #expect(try JSONDictionaryFileStore(fileURL: url).value(forKey: "launchCount", as: Int.self) == 41)
    }

    @Test func guideStoreRejectsACorruptFile() throws {
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("settings.json")
        try Data("{not json".utf8).write(to: url)
        #expect(throws: (any Error).self) { try JSONDictionaryFileStore(fileURL: url) }
    }
}
