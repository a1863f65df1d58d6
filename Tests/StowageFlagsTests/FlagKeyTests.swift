import StowageFlags
import Testing

/// The declarations of Vexil's "Flag Keys" guide, and the keys it prints for
/// them under each configuration: a flag `myAwesomeFlag` in group
/// `secondSubgroup` in group `subgroup`.
struct FlagKeyTests {
    struct MyFlags: FlagContainer {
        @FlagGroup("A subgroup of flags") var subgroup = Subgroup()
    }
    struct Subgroup: FlagContainer {
        @FlagGroup("A second-level subgroup of flags") var secondSubgroup = SecondSubgroup()
    }
    struct SecondSubgroup: FlagContainer {
        @Flag("My Awesome Flag") var myAwesomeFlag = false
    }

    struct FlagSnakeCase: FlagContainer {
        @FlagGroup("") var subgroup = Inner()
        struct Inner: FlagContainer { @FlagGroup("") var secondSubgroup = Leaf() }
        struct Leaf: FlagContainer { @Flag("My Awesome Flag", key: .styled(.snakeCase)) var myAwesomeFlag = false }
    }

    struct FlagCustomKey: FlagContainer {
        @FlagGroup("") var subgroup = Inner()
        struct Inner: FlagContainer { @FlagGroup("") var secondSubgroup = Leaf() }
        struct Leaf: FlagContainer { @Flag("My Awesome Flag", key: .custom("my-key")) var myAwesomeFlag = false }
    }

    struct FlagFullName: FlagContainer {
        @FlagGroup("") var subgroup = Inner()
        struct Inner: FlagContainer { @FlagGroup("") var secondSubgroup = Leaf() }
        struct Leaf: FlagContainer { @Flag("My Awesome Flag", key: .fullName("my-key")) var myAwesomeFlag = false }
    }

    struct GroupSkipped: FlagContainer {
        @FlagGroup("") var subgroup = Inner()
        struct Inner: FlagContainer { @FlagGroup("", key: .skipped) var secondSubgroup = SecondSubgroup() }
    }

    struct GroupSnakeCase: FlagContainer {
        @FlagGroup("") var subgroup = Inner()
        struct Inner: FlagContainer { @FlagGroup("", key: .styled(.snakeCase)) var secondSubgroup = SecondSubgroup() }
    }

    static func key<Container: FlagContainer>(
        _ container: @autoclosure () -> Container, _ strategy: StorageKeyStrategy = StorageKeyStrategy(caseStyle: .kebabCase)
    ) throws -> String {
        let pole = try FlagPole(container(), keyStrategy: strategy, overrides: InMemoryStore())
        return try #require(pole.definitions.first).key
    }

    @Test func theKeysOfVexilsFlagKeysGuide() throws {
        #expect(try Self.key(MyFlags()) == "subgroup.second-subgroup.my-awesome-flag")
        #expect(try Self.key(MyFlags(), StorageKeyStrategy(caseStyle: .snakeCase)) == "subgroup.second_subgroup.my_awesome_flag")
        #expect(try Self.key(MyFlags(), StorageKeyStrategy(separator: "/", caseStyle: .kebabCase)) == "subgroup/second-subgroup/my-awesome-flag")
        #expect(try Self.key(MyFlags(), StorageKeyStrategy(caseStyle: .kebabCase, prefix: "feature")) == "feature.subgroup.second-subgroup.my-awesome-flag")
        #expect(try Self.key(FlagSnakeCase()) == "subgroup.second-subgroup.my_awesome_flag")
        #expect(try Self.key(FlagCustomKey()) == "subgroup.second-subgroup.my-key")
        #expect(try Self.key(FlagFullName()) == "my-key")
        #expect(try Self.key(FlagFullName(), StorageKeyStrategy(caseStyle: .kebabCase, prefix: "feature")) == "my-key")
        #expect(try Self.key(GroupSkipped()) == "subgroup.my-awesome-flag")
        #expect(try Self.key(GroupSnakeCase()) == "subgroup.second_subgroup.my-awesome-flag")
    }

    @Test func theDefaultStrategyIsKebabCaseJoinedByDots() throws {
        let pole = try FlagPole(MyFlags(), overrides: InMemoryStore())
        #expect(pole.keyStrategy == StorageKeyStrategy(separator: ".", caseStyle: .kebabCase, prefix: nil))
    }

    struct Acronyms: FlagContainer {
        @Flag("") var userIDs = false
        @Flag("") var maxHTTPConnections = 4
        @Flag("") var thirdLevelFlag2 = false
    }

    /// Stowage splits words as its key groups and the environment store do,
    /// which differs from Vexil on a plural acronym: Vexil writes `user-i-ds`.
    @Test func wordsAreSplitAsEverywhereElseInStowage() throws {
        let pole = try FlagPole(Acronyms(), overrides: InMemoryStore())
        #expect(pole.definitions.map(\.key) == ["user-ids", "max-http-connections", "third-level-flag2"])
    }
}
