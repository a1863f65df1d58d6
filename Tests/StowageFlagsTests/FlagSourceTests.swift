import Foundation
import StowageEnvironment
import StowageFlags
import StowageTestSupport
import Testing

/// Any store can hold the remote values or the overrides, and bad data in
/// either is reported while the flags keep their values.
struct FlagSourceTests {
    init() { ReportedErrors.install() }

    @Test func theEnvironmentCanBeTheRemoteSource() throws {
        let environment = EnvironmentStore(variables: ["RATE_LIMIT": "0x10", "SEARCH_VECTOR_INDEX": "yes", "THEME": "sepia"])
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore(), remote: environment)
        #expect(flags.rateLimit == 16 && flags.search.vectorIndex && flags.theme == .sepia)
        #expect(flags.state(forKey: "rate-limit")?.value == 16)
        #expect(flags.state(forKey: "rate-limit")?.origin == .remote)
    }

    @Test func environmentTextThatIsNoValueOfTheFlagIsReported() throws {
        let environment = EnvironmentStore(variables: ["RATE_LIMIT": "lots"])
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore(), remote: environment)
        #expect(flags.rateLimit == 100)
        #expect(flags.state(forKey: "rate-limit")?.origin == .default)
        #expect(ReportedErrors.forKey("rate-limit").contains { $0.message.contains("the remote value \"lots\"") })
    }

    /// An overrides file edited by hand: a value of the wrong type, then text
    /// that is not JSON. The flags keep their values and nothing is lost.
    @Test func anOverridesFileEditedByHandWithNonsenseKeepsTheFlags() throws {
        let directory = TemporaryDirectory()
        let file = directory.write(#"{"theme": "dark", "search.model": "dense"}"#, to: "overrides.json")
        let store = JSONFileStore(url: file, options: .init(changeDetection: .none))
        let flags = try FlagPole(SharedFlags(), overrides: store)
        #expect(flags.theme == .dark && flags.search.model == "dense")

        directory.write(#"{"theme": "purple", "search.model": "dense"}"#, to: "overrides.json")
        try store.reload()
        #expect(flags.theme == .dark && flags.search.model == "dense")
        #expect(ReportedErrors.forKey("theme").contains { $0.message.contains("\"purple\"") && $0.message.contains("keeps its previous override value") })

        directory.write(#"{"theme": "#, to: "overrides.json")
        try? store.reload()  // reported by the file store, which keeps what it read last
        #expect(flags.theme == .dark && flags.search.model == "dense")
        #expect(flags.all.map(\.origin) == [.default, .default, .override, .default, .override])
    }
}
