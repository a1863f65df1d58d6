import StowageInMemory
import Testing

/// Version 1 stored `{"first": ..., "last": ...}`; version 2 `{"fullName": ...}`;
/// version 3 added `nickname`.
struct Profile: VersionedStorable, Equatable {
    var fullName: String
    var nickname: String

    static let schemaVersion = 3
    static let schemaMigrations = [
        SchemaMigration(from: 1) { (old: [String: String]) in ["fullName": "\(old["first"] ?? "") \(old["last"] ?? "")"] },
        SchemaMigration(from: 2) { (old: StoredValue) -> StoredValue in
            guard case .dictionary(var members) = old else { return old }
            members["nickname"] = members["fullName"]
            return .dictionary(members)
        },
    ]
}

struct SchemaMigrationTests {
    @Test func anUnversionedValueIsUpgradedFromVersionOne() throws {
        let store: InMemoryStore = ["profile": ["first": "Ada", "last": "Lovelace"]]
        #expect(try store.value(forKey: "profile", as: Profile.self) == Profile(fullName: "Ada Lovelace", nickname: "Ada Lovelace"))
        // Reading does not write.
        #expect(store.storedValue(forKey: "profile", .granted) == ["first": "Ada", "last": "Lovelace"])
    }

    @Test func aValueIsWrittenWithItsVersion() throws {
        let store = InMemoryStore()
        try store.set(Profile(fullName: "Grace Hopper", nickname: "Amazing Grace"), forKey: "profile")
        #expect(store.storedValue(forKey: "profile", .granted) == ["schemaVersion": 3, "value": ["fullName": "Grace Hopper", "nickname": "Amazing Grace"]])
    }

    @Test func upgradeSchemaWritesTheUpgradeOnce() throws {
        let store: InMemoryStore = ["profile": ["schemaVersion": 2, "value": ["fullName": "Alan Turing"]]]
        #expect(try store.upgradeSchema(forKey: "profile", as: Profile.self))
        #expect(store.storedValue(forKey: "profile", .granted) == ["schemaVersion": 3, "value": ["fullName": "Alan Turing", "nickname": "Alan Turing"]])
        #expect(try !store.upgradeSchema(forKey: "profile", as: Profile.self))
        #expect(try !store.upgradeSchema(forKey: "absent", as: Profile.self))
    }

    @Test func aNewerVersionIsAnErrorAndLeftAlone() throws {
        let newer: StoredValue = ["schemaVersion": 4, "value": ["fullName": "X", "nickname": "Y", "pronouns": "they"]]
        let store: InMemoryStore = ["profile": newer]
        let error = try #require(throws: StorageError.self) { try store.value(forKey: "profile", as: Profile.self) }
        #expect(error.key == "profile")
        #expect(error.message.contains("newer"))
        // The code Guides/Composition.md gives, as for a missing step.
        #expect(error.code == .migrationFailed)
        #expect(throws: StorageError.self) { try store.upgradeSchema(forKey: "profile", as: Profile.self) }
        #expect(store.snapshot()["profile"] == newer)
    }

    @Test func aFailingStepIsAMigrationFailure() throws {
        let store: InMemoryStore = ["profile": ["schemaVersion": 1, "value": 42]]
        let error = try #require(throws: StorageError.self) { try store.value(forKey: "profile", as: Profile.self) }
        #expect(error.code == .migrationFailed)
        #expect(error.key == "profile")
    }
}
