import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// The list of flags, derived from the declaration: what a tool or a screen shows.
struct FlagListingTests {
    @Test func everyFlagIsListedWithWhatASurfaceNeeds() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        try flags.update(with: ["rate-limit": 50])
        try flags.override(\.theme, with: .dark)
        let listed = flags.all
        #expect(listed.map(\.key) == ["new-checkout", "rate-limit", "theme", "search.vector-index", "search.model"])
        #expect(listed.map(\.id) == listed.map(\.key))
        #expect(listed.map(\.origin) == [.default, .remote, .override, .default, .default])
        #expect(listed.map(\.isOverridden) == [false, false, true, false, false])
        #expect(listed.map(\.value) == [false, 50, "dark", false, "bm25"])
        #expect(listed.map(\.defaultValue) == [false, 100, "light", false, "bm25"])
        #expect(listed[0].description == "Shows the new checkout flow")
        #expect(listed[2].type == FlagType(name: "Theme", kind: .choice(["light", "dark", "sepia"])))
        #expect(listed[1].type == FlagType(name: "Int", kind: .integer(isSigned: true, bitWidth: 64)))
        #expect(listed[4].definition.groups.map(\.description) == ["Search"])
        #expect(try listed[2].value(as: SharedFlags.Theme.self) == .dark)
    }

    @Test func flagsAreFoundByKeyNameOrDescription() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        #expect(flags.all(matching: "CHECKOUT").map(\.key) == ["new-checkout"])
        #expect(flags.all(matching: "vectorIndex").map(\.key) == ["search.vector-index"])
        #expect(flags.all(matching: "ranking model").map(\.key) == ["search.model"])
        #expect(flags.all(matching: "search.").map(\.key) == ["search.vector-index", "search.model"])
        #expect(flags.all(matching: "").count == 5)
    }

    @Test func aSnapshotHoldsEveryFlagWithItsOrigin() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        try flags.update(with: ["search": ["model": "dense"]])
        let snapshot = flags.snapshot()
        #expect(snapshot.entries.count == 5)
        #expect(snapshot["search.model"] == "dense" && snapshot.origins["search.model"] == "remote")
        #expect(snapshot.origins["theme"] == "default")
    }

    enum Region: String, Storable, CaseIterable { case eu, us }
    struct Limits: Codable, Storable, Equatable { var burst = 10; var perMinute = 600 }
    struct EveryType: FlagContainer {
        @Flag("") var enabled = false
        @Flag("") var count = 1
        @Flag("") var small: UInt8 = 2
        @Flag("") var wide: Int64 = -3
        @Flag("") var huge: UInt64 = 4
        @Flag("") var ratio = 0.5
        @Flag("") var name = "ada"
        @Flag("") var region = Region.eu
        @Flag("") var limits = Limits()
    }

    @Test func everyValueTypeIsReadUpdatedOverriddenAndDescribed() throws {
        let flags = try FlagPole(EveryType(), overrides: InMemoryStore())
        let result = try flags.update(
            with: Data(
                #"""
                {"enabled": true, "count": -7, "small": 255, "wide": -9223372036854775808, "huge": 18446744073709551615,
                 "ratio": -0.0, "name": "grace", "region": "us", "limits": {"burst": 1, "perMinute": 2}}
                """#.utf8))
        #expect(result.rejected.isEmpty)
        #expect(flags.enabled && flags.count == -7 && flags.small == 255 && flags.wide == .min && flags.huge == .max)
        #expect(flags.ratio == 0 && flags.ratio.sign == .minus)
        #expect(flags.name == "grace" && flags.region == .us && flags.limits == Limits(burst: 1, perMinute: 2))

        let rejected = try flags.update(with: Data(#"{"small": 256, "region": "asia", "limits": {"burst": "x"}, "ratio": "half"}"#.utf8), mode: .patch).rejected
        #expect(Set(rejected.compactMap(\.key)) == ["small", "region", "limits", "ratio"])
        let limits = try #require(rejected.first { $0.key == "limits" })
        #expect(limits.message.contains(#"is not a valid Limits ("#) && limits.message.contains("burst"))
        #expect(flags.small == 255 && flags.region == .us && flags.limits == Limits(burst: 1, perMinute: 2))

        try flags.override(\.limits, with: Limits(burst: 5, perMinute: 5))
        try flags.override(\.region, with: .eu)
        #expect(flags.limits.burst == 5 && flags.region == .eu)

        let kinds = flags.definitions.map(\.type.kind)
        #expect(
            kinds == [
                .bool, .integer(isSigned: true, bitWidth: 64), .integer(isSigned: false, bitWidth: 8), .integer(isSigned: true, bitWidth: 64),
                .integer(isSigned: false, bitWidth: 64), .floatingPoint, .string, .choice(["eu", "us"]), .other,
            ])
        #expect(flags.definitions.last?.defaultValue == ["burst": 10, "perMinute": 600])
    }
}
