import StowageConfiguration
import Testing

/// Keys both ways, for every kind of separator.
struct ConfigKeyMappingTests {
    @Test(arguments: [("server.http.port", "."), ("server::http::port", "::"), ("server/http/port", "/")])
    func aSeparatorSplitsAndJoinsTheSameKey(_ key: String, _ separator: String) {
        let mapping = ConfigKeyMapping.separator(separator)
        let configKey = mapping.configKey(for: key)
        #expect(configKey.components == ["server", "http", "port"])
        #expect(mapping.storeKey(for: configKey) == key)
    }

    @Test func emptyComponentsAreKeptAndAnEmptySeparatorKeepsOneComponent() {
        #expect(ConfigKeyMapping.dotted.configKey(for: "a..b").components == ["a", "", "b"])
        #expect(ConfigKeyMapping.separator("").configKey(for: "a.b").components == ["a.b"])
        #expect(ConfigKeyMapping.separator("").storeKey(for: AbsoluteConfigKey(["a", "b"])) == "ab")
    }
}
