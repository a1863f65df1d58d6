import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// A tool's view of a program's flags, from the manifest alone.
struct FlagConsoleTests {
    init() { ReportedErrors.install() }

    /// A program's pole, with its overrides and remote values in files, and its manifest.
    struct Program {
        let directory = TemporaryDirectory()
        let flags: FlagPole<SharedFlags>
        let manifest: URL

        init() throws {
            flags = try FlagPole(
                SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")),
                remote: JSONFileStore(url: directory.url("remote.json"))
            )
            manifest = try flags.writeManifest()
        }
    }

    @Test func aToolListsTheFlagsAsTheProgramDoes() throws {
        let program = try Program()
        try program.flags.update(with: ["rate-limit": 50, "search": ["model": "dense"]])
        try program.flags.override(\.theme, with: .sepia)
        try program.flags.flush()

        let tool = try FlagConsole(contentsOf: program.manifest, changeDetection: .none)
        #expect(tool.seesRemoteValues)
        #expect(tool.all == program.flags.all)
        #expect(tool.all.map(\.origin) == [.default, .remote, .override, .default, .remote])
        #expect(tool.all(matching: "ranking").map(\.key) == ["search.model"])
        #expect(tool.remoteUpdatedAt == program.flags.remoteUpdatedAt)
    }

    @Test func aToolsOverrideIsCheckedAndReachesTheProgram() async throws {
        let program = try Program()
        let seen = Arrivals<Int>()
        let token = program.flags.observe(\.rateLimit) { seen.receive($0) }
        defer { token.cancel() }

        let tool = try FlagConsole(contentsOf: program.manifest, changeDetection: .none)
        #expect {
            try tool.override(key: "rate-limit", with: "lots")
        } throws: { error in
            (error as? StorageError)?.message == #"Key "rate-limit": Int takes a whole number from -9223372036854775808 to 9223372036854775807; found "lots"."#
        }
        #expect(throws: StorageError.self) { try tool.override(key: "no-such-flag", with: true) }
        try tool.override(key: "rate-limit", with: 7)
        try tool.flush()
        #expect(await seen.wait(for: 7))
        #expect(program.flags.state(forKey: "rate-limit")?.origin == .override)

        try tool.removeOverride(forKey: "rate-limit")
        try tool.flush()
        #expect(await seen.wait(for: 100))
    }

    @Test func aToolSeesTheProgramsChangesAndLeftOverOverrides() async throws {
        let program = try Program()
        try (program.flags.overrides as? JSONFileStore)?.set(true, forKey: "retired-flag")
        try program.flags.flush()
        let tool = try FlagConsole(contentsOf: program.manifest)
        #expect(tool.orphanedOverrides == ["retired-flag": true])
        let changes = Arrivals<String>()
        let token = tool.observe { changes.receive("\($0.key)=\($0.value) \($0.origin)") }
        defer { token.cancel() }

        try program.flags.override(\.newCheckout, with: true)
        try program.flags.flush()
        #expect(await changes.wait(for: "new-checkout=true override"))

        #expect(try tool.removeAllOverrides() == ["new-checkout", "retired-flag"])
        try tool.flush()
        try (program.flags.overrides as? JSONFileStore)?.reload()
        #expect(!program.flags.newCheckout && program.flags.orphanedOverrides.isEmpty)
    }

    @Test func aManifestWithoutAnOverridesFileCanNotBeOpened() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        let directory = TemporaryDirectory()
        try flags.manifest.write(to: directory.url("flags.manifest.json"))
        #expect {
            try FlagConsole(contentsOf: directory.url("flags.manifest.json"))
        } throws: { error in
            (error as? StorageError)?.message.contains("outside a JSON file") == true
        }
    }

    @Test func remoteValuesKeptOnlyInTheProgramsMemoryAreNotSeen() throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")))
        try flags.update(with: ["rate-limit": 50])
        let tool = try FlagConsole(contentsOf: try flags.writeManifest(), changeDetection: .none)
        #expect(!tool.seesRemoteValues)
        #expect(tool.state(forKey: "rate-limit")?.origin == .default)
    }
}
