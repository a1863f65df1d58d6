import StowageEnvironment
import StowageInMemory
import Testing

/// Keys declared in nested groups, with every naming rule.
enum AppKeys: StorageKeyGroup {
    enum Network: StorageKeyGroup {
        typealias Parent = AppKeys
        static let timeout = key("timeout", default: 30.0)
        static let maxRetries = key("maxRetries", default: 3)
        static let proxy: StorageKey<String?> = key("proxy", default: nil)
        enum HTTPClient: StorageKeyGroup {
            typealias Parent = Network
            static let userAgent = key("userAgent", default: "stowage")
        }
    }
    enum Internal: StorageKeyGroup {
        typealias Parent = AppKeys
        static let groupName = StorageKeyGroupName.skipped
        static let buildNumber = key("buildNumber", default: 0)
    }
    enum Appearance: StorageKeyGroup {
        typealias Parent = AppKeys
        static let groupName = StorageKeyGroupName.custom("ui")
        static let theme = key("theme", default: "light")
        static let legacyTheme = key(fullName: "AppleInterfaceStyle", default: "Light")
        static let accent = key(fullName: "ui.accent_Colour", default: "blue")
    }
}

enum KebabKeys: StorageKeyGroup {
    static let keyStrategy = StorageKeyStrategy(separator: ".", caseStyle: .kebabCase, prefix: "my-app")
    enum Network: StorageKeyGroup {
        typealias Parent = KebabKeys
        static let maxRetries = key("maxRetries", default: 3)
        enum HTTPClient: StorageKeyGroup {
            typealias Parent = Network
            static let userAgent = key("userAgent", default: "stowage")
        }
    }
}

enum SnakeKeys: StorageKeyGroup {
    static let keyStrategy = StorageKeyStrategy(separator: "/", caseStyle: .snakeCase)
    static let groupName = StorageKeyGroupName.typeName
    enum Network: StorageKeyGroup {
        typealias Parent = SnakeKeys
        static let maxRetries = key("maxRetries", default: 3)
    }
}

enum DashedKeys: StorageKeyGroup {
    static let keyStrategy = StorageKeyStrategy(separator: "-")
    enum Network: StorageKeyGroup {
        typealias Parent = DashedKeys
        static let timeout = key("timeout", default: 30.0)
    }
}

struct KeyStrategyTests {
    @Test func namesComeFromTheGroupsAsWrittenByDefault() {
        #expect(AppKeys.Network.timeout.name == "network.timeout")
        #expect(AppKeys.Network.maxRetries.name == "network.maxRetries")
        #expect(AppKeys.Network.proxy.name == "network.proxy")
        #expect(AppKeys.Network.HTTPClient.userAgent.name == "network.httpClient.userAgent")
    }

    @Test func groupsCanBeSkippedOrRenamed() {
        #expect(AppKeys.Internal.buildNumber.name == "buildNumber")
        #expect(AppKeys.Appearance.theme.name == "ui.theme")
    }

    @Test func customAndVerbatimKeys() {
        #expect(AppKeys.Appearance.legacyTheme.name == "AppleInterfaceStyle")
        #expect(AppKeys.Appearance.accent.name == "ui.accent_Colour")
    }

    @Test func kebabCaseWithAPrefix() {
        #expect(KebabKeys.Network.maxRetries.name == "my-app.network.max-retries")
        #expect(KebabKeys.Network.HTTPClient.userAgent.name == "my-app.network.http-client.user-agent")
    }

    @Test func snakeCaseWithASeparatorAndTheTopLevelGroupNamed() {
        #expect(SnakeKeys.Network.maxRetries.name == "snake_keys/network/max_retries")
    }

    @Test func aSeparatorOfItsOwn() {
        #expect(DashedKeys.Network.timeout.name == "network-timeout")
        #expect(EnvironmentStore(variables: [:]).variableName(forKey: DashedKeys.Network.timeout.name) == "NETWORK_TIMEOUT")
    }

    @Test func defaultsAndTypesTravelWithTheKeys() {
        #expect(AppKeys.Network.timeout.defaultValue == 30.0)
        #expect(AppKeys.Network.proxy.defaultValue == nil)
    }

    @Test func oneKeyNamesAFileKeyAndAnEnvironmentVariable() throws {
        let environment = EnvironmentStore(variables: ["NETWORK_MAX_RETRIES": "7", "MY_APP_NETWORK_MAX_RETRIES": "9"])
        #expect(environment.variableName(forKey: AppKeys.Network.maxRetries.name) == "NETWORK_MAX_RETRIES")
        #expect(environment[AppKeys.Network.maxRetries] == 7)
        #expect(environment[KebabKeys.Network.maxRetries] == 9)
        let file = InMemoryStore()
        file[AppKeys.Network.maxRetries] = 4
        #expect(file.storedValue(forKey: "network.maxRetries", .granted) == 4)
    }
}
