import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// Remote updates: what a payload does to the flags it names and to the others.
struct FlagUpdateTests {
    init() { ReportedErrors.install() }

    struct ShopFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
        @Flag("Requests a client may make each second") var rateLimit = 100
        @FlagGroup("Search") var search = SearchFlags()
    }
    struct SearchFlags: FlagContainer {
        @Flag("Ranks results with the vector index") var vectorIndex = false
        @Flag("The ranking model") var model = "bm25"
    }

    @Test func aFullStatePayloadTakesAwayTheRemoteValuesItLeavesOut() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(#"{"new-checkout": true, "rate-limit": 5}"#.utf8))
        #expect(flags.newCheckout && flags.rateLimit == 5)
        let result = try flags.update(with: Data(#"{"rate-limit": 5}"#.utf8))
        #expect(!flags.newCheckout && flags.rateLimit == 5)
        #expect(result.changedKeys == ["new-checkout"])
    }

    @Test func aPatchChangesOnlyWhatItNamesAndNullTakesAValueAway() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(#"{"new-checkout": true, "rate-limit": 5}"#.utf8))
        try flags.update(with: Data(#"{"rate-limit": 6}"#.utf8), mode: .patch)
        #expect(flags.newCheckout && flags.rateLimit == 6)
        try flags.update(with: Data(#"{"new-checkout": null}"#.utf8), mode: .patch)
        #expect(!flags.newCheckout && flags.rateLimit == 6)
        #expect(flags.state(forKey: "new-checkout")?.origin == .default)
    }

    @Test func aPayloadMayNestKeysByTheSeparator() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        let result = try flags.update(with: Data(#"{"search": {"vector-index": true}, "search.model": "dense"}"#.utf8))
        #expect(flags.search.vectorIndex && flags.search.model == "dense")
        #expect(result.changedKeys == ["search.model", "search.vector-index"] && result.rejected.isEmpty)
    }

    @Test func aWrongValueOrAnUnknownKeyIsReportedAndTheRestApplied() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(#"{"rate-limit": 7}"#.utf8))
        let unknown = "retired-\(UInt64.random(in: 0...UInt64.max))"
        let result = try flags.update(with: Data(#"{"rate-limit": "lots", "new-checkout": true, "\#(unknown)": 1}"#.utf8), mode: .patch)
        #expect(flags.newCheckout)
        #expect(flags.rateLimit == 7)  // keeps its value
        let wrongType = try #require(result.rejected.first { $0.key == "rate-limit" })
        #expect(wrongType.code == .typeMismatch)
        #expect(
            wrongType.message
                == #"Key "rate-limit": the payload's value "lots" is not a valid Int, which takes a whole number from -9223372036854775808 to 9223372036854775807. The flag keeps its value."#
        )
        let stranger = try #require(result.rejected.first { $0.key == unknown })
        #expect(stranger.message.contains("names no flag") && stranger.message.contains("1"))
        #expect(!ReportedErrors.forKey(unknown).isEmpty)
        #expect(result.changedKeys == ["new-checkout"])
    }

    /// In a full state too, the default: a rejected entry is no reason to take the flag's remote value away.
    @Test func aFlagWhoseEntryIsRejectedKeepsItsRemoteValueInAFullState() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(#"{"rate-limit": 7, "new-checkout": true}"#.utf8))
        let result = try flags.update(with: Data(#"{"rate-limit": "lots"}"#.utf8))
        #expect(result.rejected.compactMap(\.key) == ["rate-limit"])
        #expect(flags.rateLimit == 7 && flags.state(forKey: "rate-limit")?.origin == .remote)
        #expect(!flags.newCheckout)  // left out of the full state
        #expect(result.changedKeys == ["new-checkout"])
    }

    @Test func aPayloadThatIsNotAJSONObjectAppliesNothing() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(#"{"rate-limit": 7}"#.utf8))
        #expect(throws: StorageError.self) { try flags.update(with: Data(#"{"rate-limit": 8"#.utf8)) }
        #expect(throws: StorageError.self) { try flags.update(with: Data("[1, 2]".utf8)) }
        #expect(flags.rateLimit == 7)
    }

    @Test func onlyFlagsWhoseValueChangedAreAnnounced() async throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        let changes = Collected<String>()
        let token = flags.observe { changes.append("\($0.key)=\($0.value)") }
        defer { token.cancel() }
        let payload = Data(#"{"new-checkout": true, "rate-limit": 100, "search": {"model": "bm25"}}"#.utf8)
        #expect(try flags.update(with: payload).changedKeys == ["new-checkout", "rate-limit", "search.model"])
        #expect(try flags.update(with: payload).changedKeys.isEmpty)
        // rate-limit and search.model were set to their defaults: a new origin, the same value.
        #expect(changes.all == ["new-checkout=true", "rate-limit=100", "search.model=\"bm25\""])
        #expect(flags.state(forKey: "rate-limit")?.origin == .remote)
    }

    @Test func theTimeOfTheLastUpdateIsRecorded() throws {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        #expect(flags.remoteUpdatedAt == nil && flags.remoteAge == nil)
        let before = Date()
        try flags.update(with: [:])
        let recorded = try #require(flags.remoteUpdatedAt)
        #expect(abs(recorded.timeIntervalSince(before)) < 60)
        #expect(try #require(flags.remoteAge) >= .zero)
    }

    @Test func aRemoteUpdateKeepsOverridesUnlessThePolicySaysOtherwise() throws {
        let keeping = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        try keeping.override(\.rateLimit, with: 1)
        try keeping.update(with: ["rate-limit": 50])
        #expect(keeping.rateLimit == 1)

        let clearing = try FlagPole(ShopFlags(), overrides: InMemoryStore(), options: .init(remoteUpdatesClearOverrides: true))
        try clearing.override(\.rateLimit, with: 1)
        try clearing.override(\.newCheckout, with: true)
        let result = try clearing.update(with: ["rate-limit": 50])
        #expect(clearing.rateLimit == 50 && clearing.newCheckout)
        #expect(result.clearedOverrides == ["rate-limit"])
    }

    @Test func theLastPayloadSurvivesARestartWhenTheRemoteValuesAreInAFile() throws {
        let directory = TemporaryDirectory()
        let worker = WorkerProcess("StowageFlagsWorker")
        let overrides = directory.file("overrides.json"), remote = directory.file("remote.json")
        let update = try worker.run(["update", overrides, remote, #"{"rate-limit": 42, "search": {"model": "dense"}}"#])
        #expect(update.status == 0)
        // A new process, as after a restart, before any fetch.
        #expect(try worker.run(["read", overrides, remote, "rate-limit"]).output == "42 remote dated\n")
        #expect(try worker.run(["read", overrides, remote, "search.model"]).output == "\"dense\" remote dated\n")
    }
}

extension FlagUpdateTests {
    struct Dated: FlagContainer {
        @Flag("When the sale ends") var saleEnds = Date(timeIntervalSince1970: 0)
    }

    /// The JSON file store keeps a date as text; the same date sent again is no change.
    @Test func aValueTheRemoteStoreKeepsInAnotherFormIsNoChange() throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(Dated(), overrides: InMemoryStore(), remote: JSONFileStore(url: directory.url("remote.json")))
        let payload = Data(#"{"sale-ends": "2026-12-24T18:00:00.000Z"}"#.utf8)
        #expect(try flags.update(with: payload).changedKeys == ["sale-ends"])
        #expect(try flags.update(with: payload).changedKeys.isEmpty)
        #expect(flags.saleEnds == Date(timeIntervalSince1970: 1_798_135_200))
    }
}
