import StowageFlags
import StowageTestSupport
import Testing

/// Opening a container, and reading its flags through the pole's layers.
struct FlagPoleTests {
    struct AppFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
        @Flag("Requests a client may make each second") var rateLimit = 100
        @FlagGroup("Search") var search = SearchFlags()
        @FlagGroup("Search in the admin pages") var adminSearch = SearchFlags()
        var both: Bool { newCheckout && search.vectorIndex }
        var seven: Int { 7 }
        var doubledLimit: Int { rateLimit * 2 }
        var sameAsNewCheckout: Bool { newCheckout }
    }
    struct SearchFlags: FlagContainer {
        @Flag("Ranks results with the vector index") var vectorIndex = false
    }

    @Test func aFlagReadsItsOverrideElseItsRemoteValueElseItsDefault() throws {
        let overrides = InMemoryStore(), remote = InMemoryStore()
        let flags = try FlagPole(AppFlags(), overrides: overrides, remote: remote)
        #expect(flags.rateLimit == 100)
        #expect(flags.state(forKey: "rate-limit")?.origin == .default)

        try flags.update(with: ["rate-limit": 50])
        #expect(flags.rateLimit == 50)
        #expect(flags.state(forKey: "rate-limit")?.origin == .remote)

        try flags.override(\.rateLimit, with: 70)
        #expect(flags.rateLimit == 70)
        #expect(flags.state(forKey: "rate-limit")?.origin == .override)
        #expect(try overrides.value(forKey: "rate-limit", as: Int.self) == 70)

        try flags.removeOverride(\.rateLimit)
        #expect(flags.rateLimit == 50)
        try flags.update(with: [:])
        #expect(flags.rateLimit == 100)
    }

    @Test func nestedGroupsReadThroughKeyPaths() throws {
        let flags = try FlagPole(AppFlags(), overrides: InMemoryStore())
        try flags.override(\.search.vectorIndex, with: true)
        #expect(flags.search.vectorIndex)
        #expect(flags[\.search.vectorIndex])
        #expect(!flags.adminSearch.vectorIndex)
        #expect(flags.definitions.map(\.key) == ["new-checkout", "rate-limit", "search.vector-index", "admin-search.vector-index"])
        #expect(flags.definitions.map(\.name) == ["newCheckout", "rateLimit", "search.vectorIndex", "adminSearch.vectorIndex"])
        #expect(flags.definitions[2].groups == [FlagGroupDefinition(name: "search", description: "Search")])
    }

    @Test func aContainerOutsideAPoleReadsItsDefaults() {
        let container = AppFlags()
        #expect(container.rateLimit == 100)
        #expect(!container.search.vectorIndex)
    }

    @Test func oneDeclarationServesSeveralPolesWithTheirOwnStores() throws {
        let first = try FlagPole(AppFlags(), overrides: InMemoryStore())
        let second = try FlagPole(AppFlags(), keyStrategy: StorageKeyStrategy(caseStyle: .snakeCase), overrides: InMemoryStore())
        try first.override(\.rateLimit, with: 1)
        try second.override(\.rateLimit, with: 2)
        #expect(first.rateLimit == 1 && second.rateLimit == 2)
        #expect(second.definitions.map(\.key).contains("admin_search.vector_index"))
    }

    struct Duplicated: FlagContainer {
        @Flag("One") var first = false
        @Flag("Two", key: .custom("first")) var second = false
    }

    @Test func twoFlagsWithOneKeyAreAnErrorNamingBoth() {
        #expect {
            try FlagPole(Duplicated(), overrides: InMemoryStore())
        } throws: { error in
            let error = error as? StorageError
            return error?.code == .keyConflict && error?.key == "first"
                && error?.message.contains("Duplicated.first") == true && error?.message.contains("Duplicated.second") == true
        }
    }

    @Test func aContainerHeldInAVariableIsRefused() {
        let shared = AppFlags()
        #expect {
            try FlagPole(shared, overrides: InMemoryStore())
        } throws: { error in
            (error as? StorageError)?.message.contains("FlagPole(AppFlags())") == true
        }
    }

    @Test func aKeyPathMustNameExactlyOneFlag() throws {
        let flags = try FlagPole(AppFlags(), overrides: InMemoryStore())
        #expect {
            try flags.state(of: \.seven)
        } throws: { error in
            (error as? StorageError)?.message.contains("reads no flag") == true
        }
        #expect {
            try flags.override(\.both, with: true)
        } throws: { error in
            (error as? StorageError)?.message.contains("reads more than flag new-checkout alone") == true
        }
        #expect(throws: StorageError.self) { try flags.override(\.doubledLimit, with: 10) }
        #expect(try flags.state(of: \.search.vectorIndex).key == "search.vector-index")
        // A property that gives the flag's value as it is names the flag.
        #expect(try flags.state(of: \.sameAsNewCheckout).key == "new-checkout")
    }

    struct Reserved: FlagContainer {
        @Flag("Clashes", key: .fullName("$remote-updated-at")) var clash = false
    }

    @Test func aFlagCanNotTakeTheKeyThePoleKeepsForItself() {
        #expect(throws: StorageError.self) { try FlagPole(Reserved(), overrides: InMemoryStore()) }
    }

    @Test func aFlagIsReadOnlyInCodeAndStillObservable() async throws {
        let flags = try FlagPole(AppFlags(), overrides: InMemoryStore())
        // `flags.newCheckout = true` does not compile: the pole's subscript and the wrapper are get-only.
        let arrivals = Arrivals<Bool>()
        let token = flags.observe(\.newCheckout) { arrivals.receive($0) }
        defer { token.cancel() }
        try flags.override(\.newCheckout, with: true)
        #expect(await arrivals.wait(for: true))
    }

    /// Flags point to their declarations without counting (so reading one in
    /// a group costs no reference counting), yet a pole's stores go with it.
    @Test func aPoleLetsItsStoresGoAndItsContainerReadsDefaultsAfterward() throws {
        weak var overrides: InMemoryStore?
        var search: SearchFlags?
        do {
            let store = InMemoryStore()
            overrides = store
            let flags = try FlagPole(AppFlags(), overrides: store)
            try flags.override(\.search.vectorIndex, with: true)
            search = flags.search
            #expect(search?.vectorIndex == true)
        }
        #expect(overrides == nil)
        #expect(search?.vectorIndex == false)
        // The container's flags are free again: a new pole opens a new container as before.
        #expect(try FlagPole(AppFlags(), overrides: InMemoryStore()).rateLimit == 100)
    }
}
