import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// Local overrides: set, removed, left for flags no longer declared, written
/// by hand with nonsense, and written by another process.
struct FlagOverrideTests {
    init() { ReportedErrors.install() }

    @Test func anOverrideByKeyIsCheckedAgainstTheFlagsType() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        try flags.override(key: "theme", with: "dark")
        #expect(flags.theme == .dark)
        #expect {
            try flags.override(key: "new-checkout", with: "maybe")
        } throws: { error in
            let error = error as? StorageError
            return error?.key == "new-checkout" && error?.message.contains("true or false") == true && error?.message.contains("\"maybe\"") == true
        }
        #expect {
            try flags.override(key: "theme", with: "purple")
        } throws: { error in
            (error as? StorageError)?.message.contains(#"one of "light", "dark", "sepia""#) == true
        }
        #expect(throws: StorageError.self) { try flags.override(key: "no-such-flag", with: true) }
        #expect(flags.theme == .dark)
    }

    /// An override by key equal to what the flag reads (its default, or the
    /// remote value) is still an override: kept, announced with its new
    /// origin, and not moved by the next payload. It once wrote nothing.
    @Test func anOverrideByKeyEqualToTheValueReadIsStillAnOverride() async throws {
        let overrides = InMemoryStore()
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        var changes = flags.changes.makeAsyncIterator()
        try flags.update(with: ["rate-limit": 50])

        try flags.override(key: "theme", with: "light")  // the default
        try flags.override(key: "rate-limit", with: 50)  // the remote value
        #expect(overrides.snapshot()["theme"] == "light")
        #expect(overrides.snapshot()["rate-limit"] == 50)
        #expect(flags.state(forKey: "theme")?.origin == .override)
        #expect(flags.state(forKey: "rate-limit")?.origin == .override)

        try flags.update(with: ["rate-limit": 80, "theme": "dark"])
        #expect(flags.rateLimit == 50 && flags.theme == .light)

        try flags.override(key: "new-checkout", with: true)  // a last change, to know that nothing came between
        var seen: [String] = []
        for _ in 0..<4 {
            guard let state = await changes.next() else { break }
            seen.append("\(state.key)=\(state.value) \(state.origin)")
        }
        #expect(seen == ["rate-limit=50 remote", "theme=\"light\" override", "rate-limit=50 override", "new-checkout=true override"])
    }

    /// A hand-edited override of the wrong type is replaced by a valid one
    /// given by key, not compared with the value the layer shows in its place.
    @Test func anOverrideByKeyReplacesNonsenseWrittenByHand() throws {
        let overrides: InMemoryStore = ["rate-limit": "lots"]
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        #expect(flags.rateLimit == 100)
        try flags.override(key: "rate-limit", with: 100)
        #expect(overrides.snapshot()["rate-limit"] == 100)
        #expect(flags.state(forKey: "rate-limit")?.origin == .override)
    }

    @Test func removingAllOverridesRemovesLeftOversToo() throws {
        let overrides: InMemoryStore = ["retired-flag": true]
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        try flags.override(\.newCheckout, with: true)
        try flags.override(\.search.model, with: "dense")
        #expect(try flags.removeAllOverrides() == ["new-checkout", "retired-flag", "search.model"])
        #expect(!flags.newCheckout && flags.search.model == "bm25")
        #expect(overrides.snapshot().entries.isEmpty)
    }

    @Test func anOverrideLeftForARemovedFlagIsListedAndNeverApplied() throws {
        // "new-checkout-v1" was a flag once; its override stays in the file.
        let overrides: InMemoryStore = ["new-checkout-v1": true, "rate-limit": 3]
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        #expect(flags.orphanedOverrides == ["new-checkout-v1": true])
        #expect(!flags.newCheckout && flags.rateLimit == 3)
        #expect(flags.all.filter(\.isOverridden).map(\.key) == ["rate-limit"])
        try flags.removeOverride(forKey: "new-checkout-v1")
        #expect(flags.orphanedOverrides.isEmpty)
        #expect(flags.rateLimit == 3)
    }

    @Test func anOverrideOfTheWrongTypeIsReportedAndTheFlagKeepsItsValue() throws {
        let overrides = InMemoryStore()
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        try flags.update(with: ["rate-limit": 50])
        #expect(flags.rateLimit == 50)
        // What a hand edit of the overrides file amounts to: a value written behind the pole's back.
        try overrides.set("lots", forKey: "rate-limit")
        #expect(flags.rateLimit == 50)
        #expect(flags.state(forKey: "rate-limit")?.origin == .remote)
        let report = try #require(ReportedErrors.forKey("rate-limit").last { $0.message.contains("\"lots\"") })
        #expect(report.message.contains("is not a valid Int, which takes a whole number") && report.message.contains("the override is ignored"))

        // A valid override, then nonsense over it: the override's last valid value stays.
        try overrides.set(70, forKey: "rate-limit")
        #expect(flags.rateLimit == 70)
        try overrides.set(["not": "a number"], forKey: "rate-limit")
        #expect(flags.rateLimit == 70)
        #expect(flags.state(forKey: "rate-limit")?.origin == .override)
        #expect(flags.all.first { $0.key == "rate-limit" }?.value == 70)
        try overrides.removeValue(forKey: "rate-limit")
        #expect(flags.rateLimit == 50)
    }

    /// The last valid value follows every change: a removed override does not
    /// come back when nonsense is written where it was, read or not between.
    @Test func aRemovedOverrideStaysRemovedWhenNonsenseFollows() throws {
        let overrides = InMemoryStore()
        let flags = try FlagPole(SharedFlags(), overrides: overrides)
        try flags.override(\.theme, with: .dark)
        #expect(flags.theme == .dark)
        try flags.removeOverride(\.theme)
        try overrides.set("purple", forKey: "theme")
        #expect(flags.theme == .light)
        #expect(flags.state(forKey: "theme")?.origin == .default)
        #expect(ReportedErrors.forKey("theme").contains { $0.message.contains("\"purple\"") && $0.message.contains("the override is ignored") })
    }

    @Test func overridesSurviveARestart() throws {
        let directory = TemporaryDirectory()
        let overrides = directory.url("overrides.json"), remote = directory.url("remote.json")
        do {
            let flags = try FlagPole(SharedFlags(), overrides: JSONFileStore(url: overrides), remote: JSONFileStore(url: remote))
            try flags.override(\.theme, with: .sepia)
            try flags.flush()
        }
        let read = try WorkerProcess("StowageFlagsWorker").run(["read", overrides.path(), remote.path(), "theme"])
        #expect(read.output == "\"sepia\" override undated\n")
    }

    /// Another process (a tool working from the manifest alone) overrides a
    /// flag of a running program: the program's flag and its observers see
    /// it, and the tool's reset undoes it.
    @Test func anOverrideFromAnotherProcessReachesTheProgramAndItsObservers() async throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")))
        let manifest = try flags.writeManifest()
        #expect(manifest.lastPathComponent == "overrides.manifest.json")
        let arrivals = Arrivals<Bool>()
        let token = flags.observe(\.search.vectorIndex) { arrivals.receive($0) }
        defer { token.cancel() }
        let everyChange = Arrivals<String>()
        let stream = flags.changes
        let streamed = Task {
            for await state in stream { everyChange.receive("\(state.key)=\(state.value) \(state.origin)") }
        }
        defer { streamed.cancel() }

        let worker = WorkerProcess("StowageFlagsWorker")
        #expect(try worker.run(["override", manifest.path(), "search.vector-index", "true"]).status == 0)
        #expect(await arrivals.wait(for: true))
        #expect(await everyChange.wait(for: "search.vector-index=true override"))
        #expect(flags.search.vectorIndex)
        #expect(flags.state(forKey: "search.vector-index")?.isOverridden == true)

        #expect(try worker.run(["reset", manifest.path(), "search.vector-index"]).status == 0)
        #expect(await arrivals.wait(for: false))
        #expect(await everyChange.wait(for: "search.vector-index=false default"))
        #expect(!flags.search.vectorIndex)
    }

    @Test func aToolRefusesAValueOfTheWrongTypeFromTheManifestAlone() throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")))
        let manifest = try flags.writeManifest()
        let worker = WorkerProcess("StowageFlagsWorker")
        #expect(try worker.run(["override", manifest.path(), "new-checkout", "maybe"]).status != 0)
        #expect(try worker.run(["override", manifest.path(), "theme", "purple"]).status != 0)
        #expect(try worker.run(["override", manifest.path(), "rate-limit", "250"]).status == 0)
        try (flags.overrides as? JSONFileStore)?.reload()
        #expect(flags.rateLimit == 250 && !flags.newCheckout && flags.theme == .light)
    }
}
