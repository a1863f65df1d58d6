import ConfigurationTesting
import Foundation
import StowageConfiguration
import StowageEnvironment
import StowageJSONFile
import StowageFlags
import StowageInMemory
import Testing

/// A Stowage store as a swift-configuration provider, with real stores.
struct StowageConfigProviderTests {
    /// The values swift-configuration's `ProviderCompatTest` expects, under Stowage's dotted keys.
    static let compatibilityFixture: [String: StoredValue] = {
        let magic = Data([0x6d, 0x61, 0x67, 0x69, 0x63]), magic2 = Data([0x6d, 0x61, 0x67, 0x69, 0x63, 0x32])
        return [
            "string": "Hello", "other.string": "Other Hello",
            "int": 42, "other.int": 24,
            "double": 3.14, "other.double": 2.72,
            "bool": true, "other.bool": false,
            "bytes": .data(magic), "other.bytes": .data(magic2),
            "stringy.array": ["Hello", "World"], "other.stringy.array": ["Hello", "Swift"],
            "inty.array": [42, 24], "other.inty.array": [16, 32],
            "doubly.array": [3.14, 2.72], "other.doubly.array": [0.9, 1.8],
            "booly.array": [true, false], "other.booly.array": [false, true, true],
            "byteChunky.array": .array([.data(magic), .data(magic2)]),
            "other.byteChunky.array": .array([.data(magic), .data(magic2), .data(magic)]),
        ]
    }()

    @Test func anInMemoryStorePassesSwiftConfigurationsCompatibilityTest() async throws {
        let store = InMemoryStore(Self.compatibilityFixture)
        try await ProviderCompatTest(provider: StowageConfigProvider(store)).runTest()
    }

    @Test func aJSONFileStorePassesSwiftConfigurationsCompatibilityTest() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "settings.json")
            let writer = JSONFileStore(url: url)
            for (key, value) in Self.compatibilityFixture { try writer.set(value, forKey: key) }
            try writer.flush()
            // A second store on the file, with nested keys, reads what the file holds: data as Base64 text.
            let store = JSONFileStore(url: url, options: .init(keyLayout: .nested(separator: "/")))
            try await ProviderCompatTest(provider: StowageConfigProvider(store)).runTest()
        }
    }

    @Test func componentsAreJoinedWithDotsAndContextIsIgnored() throws {
        let store = InMemoryStore(["server.http.port": 8080])
        let provider = StowageConfigProvider(store)
        let plain = try provider.value(forKey: ["server", "http", "port"], type: .int)
        #expect(plain == LookupResult(encodedKey: "server.http.port", value: 8080))
        let withContext = try provider.value(forKey: AbsoluteConfigKey(["server", "http", "port"], context: ["region": "eu"]), type: .int)
        #expect(withContext.value == 8080)
        let reader = ConfigReader(provider: provider).scoped(to: "server")
        #expect(reader.int(forKey: "http.port") == 8080)
    }

    @Test func aCustomKeyMappingCanFoldTheContextIntoTheKey() throws {
        let store = InMemoryStore(["eu/timeout": 5, "timeout": 30])
        let mapping = ConfigKeyMapping(
            storeKey: { key in
                let base = key.components.joined(separator: "/")
                guard case .string(let region)? = key.context["region"] else { return base }
                return "\(region)/\(base)"
            },
            configKey: { AbsoluteConfigKey($0.split(separator: "/").map(String.init)) })
        let provider = StowageConfigProvider(store, keyMapping: mapping)
        #expect(try provider.value(forKey: AbsoluteConfigKey(["timeout"], context: ["region": "eu"]), type: .int).value == 5)
        #expect(try provider.value(forKey: ["timeout"], type: .int).value == 30)
    }

    @Test func theEnvironmentStoreParsesItsTextForTheTypeAsked() throws {
        let environment = EnvironmentStore(variables: [
            "SERVER_PORT": "0x1F", "FEATURE_ENABLED": "true", "RATIO": "0.25", "HOSTS": "a,b,c", "ZIP": "007",
        ])
        let reader = ConfigReader(provider: StowageConfigProvider(environment))
        #expect(reader.int(forKey: "server.port") == 31)
        #expect(reader.string(forKey: "server.port") == "0x1F")
        #expect(reader.bool(forKey: "feature.enabled") == true)
        #expect(reader.double(forKey: "ratio") == 0.25)
        #expect(reader.stringArray(forKey: "hosts") == ["a", "b", "c"])
        #expect(reader.string(forKey: "zip") == "007")
    }

    @Test func theEnvironmentStoresRefusalNamesTheKeyAndNeverASecret() throws {
        let environment = EnvironmentStore(variables: ["API_TOKEN": "s3cr3t-value", "PORT": "eighty"])
        let provider = StowageConfigProvider(environment)
        let secret = try #require(throws: StorageError.self) { try provider.value(forKey: ["api", "token"], type: .int) }
        #expect(secret.key == "api.token")
        for text in [secret.message, String(describing: secret), String(reflecting: secret)] {
            #expect(!text.contains("s3cr3t-value"), "\(text)")
        }
        let plain = try #require(throws: StorageError.self) { try provider.value(forKey: ["port"], type: .int) }
        #expect(plain.key == "port")
        #expect(plain.message.contains("swift-configuration's int"), "\(plain.message)")
        #expect(String(describing: plain).contains("eighty"), "a value that is not secret is quoted, so the check above could fail")
    }

    @Test func secrecyComesFromTheStore() throws {
        let environment = EnvironmentStore(variables: ["DATABASE_PASSWORD": "hunter2", "DATABASE_HOST": "db"])
        let provider = StowageConfigProvider(environment)
        let password = try #require(try provider.value(forKey: ["database", "password"], type: .string).value)
        #expect(password.isSecret)
        #expect(!String(describing: password).contains("hunter2"))
        #expect(try provider.value(forKey: ["database", "host"], type: .string).value?.isSecret == false)
        let snapshot = provider.snapshot()
        #expect(try snapshot.value(forKey: ["database", "password"], type: .string).value == ConfigValue("hunter2", isSecret: true))
    }

    @Test func theProviderNameNamesTheStore() throws {
        #expect(StowageConfigProvider(InMemoryStore()).providerName == "StowageConfigProvider[InMemoryStore]")
        #expect(StowageConfigProvider(EnvironmentStore(variables: [:]), name: "env").providerName == "StowageConfigProvider[env]")
        let file = JSONFileStore(url: URL(filePath: "/nonexistent/settings.json"), options: .init(changeDetection: .none))
        #expect(StowageConfigProvider(file).providerName == "StowageConfigProvider[JSONFileStore(/nonexistent/settings.json)]")
        let layered = LayeredStore([.init("env", EnvironmentStore(variables: [:])), .init("defaults", InMemoryStore())])
        #expect(StowageConfigProvider(layered).providerName == "StowageConfigProvider[LayeredStore(env, defaults)]")
    }

    @Test func aSnapshotKeepsItsValuesWhenTheStoreChanges() throws {
        let store = InMemoryStore(["limit": 1])
        let provider = StowageConfigProvider(store)
        let snapshot = provider.snapshot()
        try store.set(2, forKey: "limit")
        #expect(try snapshot.value(forKey: ["limit"], type: .int).value == 1)
        #expect(try provider.value(forKey: ["limit"], type: .int).value == 2)
        #expect(try snapshot.value(forKey: ["absent"], type: .int).value == nil)
    }

    /// A store that can not list its keys is read once per key and type and
    /// keeps the answer; once its snapshot threw for every key, and with it a
    /// `ConfigReader`'s snapshot, which stops at the first provider that throws.
    @Test func aStoreThatCanNotListHasASnapshotThatKeepsItsFirstAnswers() throws {
        let values = MutableInMemoryProvider(initialValues: ["limit": 1])
        let unlisted = ConfigProviderStore(values)
        let provider = StowageConfigProvider(unlisted)
        let snapshot = provider.snapshot()
        #expect(try snapshot.value(forKey: ["limit"], type: .int).value == 1)
        values.setValue(2, forKey: ["limit"])
        #expect(try unlisted.value(forKey: "limit", as: Int.self) == 2)
        #expect(try snapshot.value(forKey: ["limit"], type: .int).value == 1, "asked again, the snapshot gives its first answer")
        #expect(try snapshot.value(forKey: ["absent"], type: .int).value == nil)

        let reader = ConfigReader(providers: [provider, InMemoryProvider(values: ["other": "x"])])
        let readerSnapshot = reader.snapshot()
        #expect(readerSnapshot.int(forKey: "limit") == 2)
        #expect(readerSnapshot.string(forKey: "other") == "x", "a key of the next provider is still read")
    }

    @Test func watchValueGivesTheCurrentValueThenEachChange() async throws {
        let store = InMemoryStore(["mode": "slow"])
        let provider = StowageConfigProvider(store)
        try await withinTimeLimit(waitingFor: "each change of mode") {
            try await provider.watchValue(forKey: ["mode"], type: .string) { updates in
                var iterator = updates.makeAsyncIterator()
                #expect(try await iterator.next()?.get().value == "slow")
                try store.set("fast", forKey: "mode")
                #expect(try await iterator.next()?.get().value == "fast")
                // Announcements coalesce, so this shows only that the next value
                // comes; that equal values are skipped is ChangeReadsTests'.
                try store.set(1, forKey: "other")
                try store.set("fast", forKey: "mode")
                try store.removeValue(forKey: "mode")
                #expect(try await iterator.next()?.get() == LookupResult(encodedKey: "mode", value: nil))
            }
        }
    }

    @Test func aJSONFileEditedByAnotherProcessReachesAConfigReadersWatcher() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "service.json")
            try Data(#"{"server": {"port": 8080}}"#.utf8).write(to: url)
            let store = JSONFileStore(
                url: url, options: .init(keyLayout: .nested(separator: "."), changeDetection: .automatic(pollInterval: .milliseconds(50))))
            let reader = ConfigReader(provider: StowageConfigProvider(store))
            #expect(reader.int(forKey: "server.port") == 8080)
            try await withinTimeLimit(waitingFor: "the port edited by another process") {
                try await reader.watchInt(forKey: "server.port") { updates in
                    var iterator = updates.makeAsyncIterator()
                    #expect(try await iterator.next() == 8080)
                    try replaceFromAnotherProcess(url, with: #"{"server": {"port": 9090}}"#)
                    #expect(try await iterator.next() == 9090)
                }
            }
        }
    }

    @Test func watchSnapshotGivesANewSnapshotAfterAChange() async throws {
        let store = InMemoryStore(["a": 1])
        let provider = StowageConfigProvider(store)
        try await withinTimeLimit(waitingFor: "a snapshot after the write") {
            try await provider.watchSnapshot { snapshots in
                var iterator = snapshots.makeAsyncIterator()
                let first = try #require(await iterator.next())
                #expect(try first.value(forKey: ["a"], type: .int).value == 1)
                try store.set(2, forKey: "a")
                let second = try #require(await iterator.next())
                #expect(try second.value(forKey: ["a"], type: .int).value == 2)
                #expect(try first.value(forKey: ["a"], type: .int).value == 1)
            }
        }
    }

    @Test func aJSONFileEditedByAnotherProcessReachesASnapshotWatcher() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "service.json")
            try Data(#"{"server": {"port": 8080, "host": "a.internal"}}"#.utf8).write(to: url)
            let store = JSONFileStore(
                url: url, options: .init(keyLayout: .nested(separator: "."), changeDetection: .automatic(pollInterval: .milliseconds(50))))
            let provider = StowageConfigProvider(store)
            try await withinTimeLimit(waitingFor: "a snapshot after another process's edit") {
                try await provider.watchSnapshot { snapshots in
                    var iterator = snapshots.makeAsyncIterator()
                    let first = try #require(await iterator.next())
                    #expect(try first.value(forKey: ["server", "port"], type: .int).value == 8080)
                    try replaceFromAnotherProcess(url, with: #"{"server": {"port": 9090, "host": "b.internal"}}"#)
                    let second = try #require(await iterator.next())
                    #expect(try second.value(forKey: ["server", "port"], type: .int).value == 9090)
                    #expect(try second.value(forKey: ["server", "host"], type: .string).value == "b.internal")
                    #expect(try first.value(forKey: ["server", "host"], type: .string).value == "a.internal", "a snapshot keeps its values")
                }
            }
        }
    }

    @Test func flagsReadThroughAConfigReaderAndTheirOverridesReachWatchers() async throws {
        let flags = try FlagPole(CheckoutFlags(), overrides: InMemoryStore())
        let reader = ConfigReader(provider: StowageConfigProvider(flags: flags))
        #expect(reader.bool(forKey: "new-checkout") == false)
        #expect(reader.int(forKey: "rate-limit") == 100)
        #expect(reader.bool(forKey: "search.vector-index") == false)
        #expect(StowageConfigProvider(flags: flags).providerName == "StowageConfigProvider[flags of CheckoutFlags]")
        try await withinTimeLimit(waitingFor: "the override") {
            try await reader.watchBool(forKey: "new-checkout") { updates in
                var iterator = updates.makeAsyncIterator()
                #expect(try await iterator.next() == false)
                try flags.override(\.newCheckout, with: true)
                #expect(try await iterator.next() == true)
            }
        }
        _ = try flags.update(with: ["rate-limit": 250])
        #expect(reader.int(forKey: "rate-limit") == 250)
    }
}

struct CheckoutFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @FlagGroup("Search") var search = SearchFlags()
}

struct SearchFlags: FlagContainer {
    @Flag("Ranks results with the vector index") var vectorIndex = false
}
