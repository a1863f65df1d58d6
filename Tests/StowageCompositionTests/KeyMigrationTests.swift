import Foundation
import StowageInMemory
import StowageJSONFile
import StowageTestSupport
import Testing

struct KeyMigrationTests {
    @Test func movesAndConvertsTheValueOnce() throws {
        let store: InMemoryStore = ["timeoutMillis": 2500, "other": 1]
        let first = try store.migrateValue(from: "timeoutMillis", as: Int.self, to: "network.timeout", as: Double.self) { Double($0) / 1000 }
        #expect(first == .migrated)
        #expect(store.snapshot() == ["network.timeout": 2.5, "other": 1])
        let second = try store.migrateValue(from: "timeoutMillis", as: Int.self, to: "network.timeout", as: Double.self) { _ in
            Issue.record("the conversion ran a second time")
            return 0
        }
        #expect(second == .nothingToMigrate)
        #expect(store.snapshot() == ["network.timeout": 2.5, "other": 1])
    }

    @Test func aFailedConversionKeepsTheOldValue() throws {
        let store: InMemoryStore = ["level": "loud"]
        struct NotALevel: Error {}
        let error = try #require(throws: StorageError.self) {
            try store.migrateValue(from: "level", as: String.self, to: "volume", as: Int.self) { _ in throw NotALevel() }
        }
        #expect(error.code == .migrationFailed)
        #expect(error.key == "level")
        #expect(error.message.contains("\"volume\""))
        #expect(error.underlyingError is NotALevel)
        #expect(store.snapshot() == ["level": "loud"])
    }

    @Test func anOldValueOfTheWrongTypeIsAFailureThatKeepsIt() throws {
        let store: InMemoryStore = ["count": "many"]
        let error = try #require(throws: StorageError.self) {
            try store.migrateValue(from: "count", as: Int.self, to: "total", as: Int.self) { $0 }
        }
        #expect(error.code == .migrationFailed)
        #expect(store.snapshot() == ["count": "many"])
    }

    @Test func anExistingNewValueWinsAndTheOldKeyGoes() throws {
        let store: InMemoryStore = ["old": 1, "new": 2]
        #expect(try store.migrateValue(from: "old", to: "new") == .keptNewValue)
        #expect(store.snapshot() == ["new": 2])
    }

    @Test func referencesSeeBothKeysChange() throws {
        let store: InMemoryStore = ["old": 4]
        let old = store.reference(forKey: "old", as: Int.self), new = store.reference(forKey: "new", as: Int.self)
        #expect(old.value == 4 && new.value == nil)
        try store.migrateValue(from: "old", to: "new")
        #expect(old.value == nil && new.value == 4)
    }

    @Test func onALayeredStoreItMigratesTheWriteLayerAndIgnoresDefaults() throws {
        let file: InMemoryStore = ["oldTimeout": 10]
        let defaults: InMemoryStore = ["timeout": 30]
        let store = LayeredStore([file, defaults])
        #expect(try store.migrateValue(from: "oldTimeout", to: "timeout") == .migrated)
        #expect(file.snapshot() == ["timeout": 10])
        #expect(try store.value(forKey: "timeout", as: Int.self) == 10)
    }

    @Test func onANamespaceItMigratesPrefixedKeys() throws {
        let base: InMemoryStore = ["app.old": 1]
        #expect(try base.namespace("app").migrateValue(from: "old", to: "new") == .migrated)
        #expect(base.snapshot() == ["app.new": 1])
    }

    @Test func concurrentMigrationsInOneProcessRunOnce() async throws {
        let store: InMemoryStore = ["count": 7]
        let outcomes = await withTaskGroup(of: KeyMigrationOutcome?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? store.migrateValue(from: "count", as: Int.self, to: "label", as: String.self) { "count \($0)" } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .migrated }.count == 1)
        #expect(outcomes.filter { $0 == .nothingToMigrate }.count == 7)
        #expect(store.snapshot() == ["label": "count 7"])
    }

    /// Several processes race the same migration of one JSON file, ten times
    /// over: each time exactly one migrates and the file holds only the new key.
    @Test func processesRacingOnOneFileMigrateExactlyOnce() throws {
        let directory = TemporaryDirectory()
        let worker = WorkerProcess("StowageJSONFileWorker")
        for round in 0..<10 {
            let file = directory.file("settings-\(round).json"), go = directory.file("go-\(round)")
            directory.write(#"{"count": 7, "kept": true}"#, to: "settings-\(round).json")
            // A FIFO as the start gate: each racer blocks reading it until the byte written for it arrives.
            try #require(mkfifo(go, 0o600) == 0)
            let started = try (0..<4).map { _ in try worker.start(["migrate", file, go]) }
            let gate = open(go, O_WRONLY)  // returns once a racer has opened the other end
            try #require(gate >= 0)
            #expect(write(gate, "gogo", 4) == 4)
            let results = started.map(WorkerProcess.finish)
            close(gate)
            #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
            let outcomes = results.map { $0.output.trimmingCharacters(in: .whitespacesAndNewlines) }.sorted()
            #expect(outcomes == ["migrated", "nothingToMigrate", "nothingToMigrate", "nothingToMigrate"])
            let final = JSONFileStore(url: URL(filePath: file), options: .init(changeDetection: .none))
            #expect((try final.snapshot()).entries == ["label": "count 7", "kept": true])
        }
    }
}
