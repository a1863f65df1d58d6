#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

/// `stowage flags`, run as a person runs it, beside a program that holds the flags.
struct FlagCommandTests {
    /// The program, started, with the manifest it wrote.
    struct Program {
        let folder = Folder()
        let process: RunningProcess
        let manifest: String

        init() throws {
            process = try RunningProcess("StowageFlagsProgram", [folder.path("shop-flags.overrides.json")])
            let line = try #require(process.waitForLine(containing: "manifest "))
            manifest = String(line.dropFirst("manifest ".count))
        }
    }

    @Test func anOverrideReachesTheRunningProgramItsObserverFiresAndResetUndoesIt() throws {
        let program = try Program()
        let set = try stowage("flags", "set", "--manifest", program.manifest, "new-checkout", "true")
        #expect(set.status == 0 && set.output == "new-checkout = true (override)\n")
        #expect(program.process.waitForLine(containing: "observer new-checkout=true") != nil)
        #expect(program.process.waitForLine(containing: "change new-checkout=true override") != nil)

        let listed = try stowage("flags", "list", "--manifest", program.manifest, "--json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])
        let flags = try #require(json["flags"] as? [[String: Any]])
        #expect(flags.map { $0["key"] as? String } == ["new-checkout", "rate-limit", "theme", "search.vector-index"])
        #expect(flags[0]["value"] as? Bool == true && flags[0]["origin"] as? String == "override" && flags[0]["overridden"] as? Bool == true)
        #expect(flags[1]["value"] as? Int == 100 && flags[1]["origin"] as? String == "default")

        let reset = try stowage("flags", "reset", "--manifest", program.manifest, "new-checkout")
        #expect(reset.status == 0 && reset.output == "new-checkout = false (default)\n")
        #expect(program.process.waitForLine(containing: "observer new-checkout=false") != nil)
        #expect(program.process.waitForLine(containing: "change new-checkout=false default") != nil)
    }

    /// Setting a flag to the value it already reads makes it an override:
    /// written to the overrides file and seen by the program. It once printed
    /// "(override)" and wrote nothing.
    @Test func anOverrideEqualToTheDefaultIsWrittenAndReachesTheProgram() throws {
        let program = try Program()
        let set = try stowage("flags", "set", "--manifest", program.manifest, "theme", "light")
        #expect(set.status == 0 && set.output == "theme = \"light\" (override)\n")
        let written = try String(contentsOfFile: program.folder.path("shop-flags.overrides.json"), encoding: .utf8)
        #expect(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: String] == ["theme": "light"])
        #expect(program.process.waitForLine(containing: "change theme=\"light\" override") != nil)
    }

    @Test func theListIsAlignedForPeopleAndShowsLeftOverOverrides() throws {
        let program = try Program()
        try Data(#"{"theme": "dark", "old-flag": true}"#.utf8).write(to: program.folder.url.appending(path: "shop-flags.overrides.json"))
        #expect(program.process.waitForLine(containing: "change theme=\"dark\" override") != nil)
        let listed = try stowage("flags", "list", "--manifest", program.manifest)
        #expect(listed.status == 0)
        #expect(
            listed.output == """
                KEY                  VALUE   ORIGIN      DEFAULT  TYPE                                     DESCRIPTION
                new-checkout         false   default     false    Bool                                     Shows the new checkout flow
                rate-limit           100     default     100      Int                                      Requests a client may make each second
                theme                "dark"  override *  "light"  Theme (one of "light", "dark", "sepia")  The colour scheme
                search.vector-index  false   default     false    Bool                                     Ranks results with the vector index

                Overrides for flags the program no longer declares (remove with stowage flags reset KEY):
                old-flag  true

                The program keeps its remote values in memory only: flags it has remote values for may show their defaults here.

                """)
        let search = try stowage("flags", "list", "--manifest", program.manifest, "--search", "VECTOR")
        #expect(search.output.split(separator: "\n").dropFirst().first?.hasPrefix("search.vector-index") == true)

        let resetAll = try stowage("flags", "reset", "--manifest", program.manifest, "--all")
        #expect(resetAll.output == "Removed the overrides of old-flag, theme.\n")
        #expect(program.process.waitForLine(containing: "change theme=\"light\" default") != nil)
    }

    @Test func aValueOfTheWrongTypeOrAnUnknownKeyIsRefusedWithAMessage() throws {
        let program = try Program()
        let maybe = try stowage("flags", "set", "--manifest", program.manifest, "new-checkout", "maybe")
        #expect(maybe.status == 1 && maybe.error == "stowage: Key \"new-checkout\": Bool takes true or false; found \"maybe\".\n")
        let purple = try stowage("flags", "set", "--manifest", program.manifest, "theme", "purple")
        #expect(purple.status == 1 && purple.error.contains(#"Theme takes one of "light", "dark", "sepia"; found "purple""#))
        let huge = try stowage("flags", "set", "--manifest", program.manifest, "rate-limit", "1.5")
        #expect(huge.status == 1 && huge.error.contains("Key \"rate-limit\": Int takes a whole number"))
        let unknown = try stowage("flags", "set", "--manifest", program.manifest, "no-such-flag", "1")
        #expect(unknown.status == 1 && unknown.error == "stowage: Key \"no-such-flag\": ShopFlags has no flag with this key.\n")
        let resetUnknown = try stowage("flags", "reset", "--manifest", program.manifest, "no-such-flag")
        #expect(resetUnknown.status == 1 && resetUnknown.error.contains("Key \"no-such-flag\""))
        // Nothing reached the program.
        #expect(try stowage("flags", "list", "--manifest", program.manifest, "--json").output.contains(#""origin":"override""#) == false)
    }

    @Test func aManifestThatCanNotBeReadIsAnError() throws {
        let folder = Folder()
        try FileManager.default.createDirectory(atPath: folder.path("a-folder.json"), withIntermediateDirectories: true)
        let missing = try stowage("flags", "list", "--manifest", folder.path("missing.json"))
        #expect(missing.status == 1 && missing.error.contains("missing.json could not be read"))
        let directory = try stowage("flags", "list", "--manifest", folder.path("a-folder.json"))
        #expect(directory.status == 1 && directory.error.contains("a-folder.json could not be read"))
        try Data("{".utf8).write(to: folder.url.appending(path: "broken.json"))
        let broken = try stowage("flags", "list", "--manifest", folder.path("broken.json"))
        #expect(broken.status == 1 && broken.error.contains("broken.json is not JSON"))
        let none = try stowage("flags", "list", environment: [:])
        #expect(none.status == 1 && none.error.contains("--manifest"))
    }

    @Test func theManifestCanComeFromTheEnvironment() throws {
        let program = try Program()
        let listed = try stowage("flags", "list", environment: ["STOWAGE_FLAGS_MANIFEST": program.manifest])
        #expect(listed.status == 0 && listed.output.hasPrefix("KEY"))
    }

    /// A process that holds the overrides file's lock for long makes the tool
    /// give up after its timeout with a message, writing nothing.
    @Test func anOverridesFileLockedForLongIsReportedAfterTheTimeout() throws {
        let program = try Program()
        #expect(try stowage("flags", "set", "--manifest", program.manifest, "rate-limit", "5").status == 0)
        let lock = open(program.folder.path("shop-flags.overrides.json.lock"), O_RDWR | O_CREAT, 0o600)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let blocked = try stowage("flags", "set", "--manifest", program.manifest, "rate-limit", "6", "--lock-timeout", "0.3")
        flock(lock, LOCK_UN)
        close(lock)
        #expect(blocked.status == 1)
        #expect(blocked.error.contains("is locked by another process for more than 0.3 seconds") && blocked.error.contains("nothing was written"))
        #expect(try stowage("flags", "list", "--manifest", program.manifest, "--json").output.contains(#""value":5"#))
    }

    @Test func aResetWaitsForTheLockTooAndRemovesALeftOverOverride() throws {
        let program = try Program()
        try Data(#"{"old-flag": true}"#.utf8).write(to: program.folder.url.appending(path: "shop-flags.overrides.json"))
        let lock = open(program.folder.path("shop-flags.overrides.json.lock"), O_RDWR | O_CREAT, 0o600)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let blocked = try stowage("flags", "reset", "--manifest", program.manifest, "old-flag", "--lock-timeout", "0.2")
        flock(lock, LOCK_UN)
        close(lock)
        #expect(blocked.status == 1 && blocked.error.contains("locked by another process"))
        let reset = try stowage("flags", "reset", "--manifest", program.manifest, "old-flag")
        #expect(reset.status == 0 && reset.output == "Removed the override left for old-flag.\n")
        #expect(try stowage("flags", "list", "--manifest", program.manifest, "--json").output.contains(#""orphanedOverrides":{}"#))
        let neither = try stowage("flags", "reset", "--manifest", program.manifest)
        #expect(neither.status != 0 && neither.error.contains("give a flag's key, or --all"))
    }

    /// An override edited by hand into nonsense is shown as ignored, and `reset` removes it.
    @Test func anOverrideTheProgramIgnoresIsListedAndCanBeReset() throws {
        let program = try Program()
        try Data(#"{"theme": "purple"}"#.utf8).write(to: program.folder.url.appending(path: "shop-flags.overrides.json"))
        let listed = try stowage("flags", "list", "--manifest", program.manifest)
        #expect(
            listed.output.contains(
                """
                Overrides the program ignores, not being values of their flags' types (remove with stowage flags reset KEY):
                theme  "purple"  takes one of "light", "dark", "sepia"
                """))
        #expect(try stowage("flags", "list", "--manifest", program.manifest, "--json").output.contains(#""invalidOverrides":{"theme":"purple"}"#))
        let reset = try stowage("flags", "reset", "--manifest", program.manifest, "theme")
        #expect(reset.status == 0 && reset.output == "theme = \"light\" (default)\n")
        #expect(try String(contentsOfFile: program.folder.path("shop-flags.overrides.json"), encoding: .utf8).contains("purple") == false)
    }

    @Test func watchingAManifestThatCanNotBeReadIsAnError() throws {
        let folder = Folder()
        let watch = try stowage("flags", "watch", "--manifest", folder.path("missing.json"))
        #expect(watch.status == 1 && watch.error.contains("missing.json could not be read"))
    }

    @Test func watchPrintsEachChangeWhoeverMadeIt() throws {
        let program = try Program()
        let watch = try RunningProcess("stowage", ["flags", "watch", "--manifest", program.manifest])
        defer { watch.stop() }
        #expect(watch.waitForLine(containing: "Watching ShopFlags") != nil)
        #expect(try stowage("flags", "set", "--manifest", program.manifest, "rate-limit", "250").status == 0)
        #expect(watch.waitForLine(containing: "rate-limit = 250 (override)") != nil)
        #expect(try stowage("flags", "reset", "--manifest", program.manifest, "rate-limit").status == 0)
        #expect(watch.waitForLine(containing: "rate-limit = 100 (default)") != nil)
    }

    /// A program whose remote values live in a file, with a payload of flag
    /// definitions applied: the tool lists which flags target and evaluates
    /// one for the context given on the command line.
    @Test func evalGivesTheDetailsForAContextAndListShowsWhichFlagsTarget() throws {
        let folder = Folder()
        let payload = folder.url.appending(path: "definitions.json")
        try Data(
            #"""
            {"flags": {
                "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"if": [{"==": [{"var": "tenant"}, "acme"]}, "on", {"fractional": [["on", 50], ["off", 50]]}]},
                    "metadata": {"owner": "checkout"}},
                "rate-limit": {"state": "ENABLED", "variants": {"low": 10}, "defaultVariant": "low"}
            }}
            """#.utf8
        ).write(to: payload)
        let program = try runToTheEnd(
            "StowageFlagsProgram",
            [folder.path("shop-flags.overrides.json"), "--remote", folder.path("remote.json"), "--apply", payload.path(percentEncoded: false), "--once"])
        #expect(program.status == 0 && program.output.isEmpty, "\(program.output)\(program.error)")
        let manifest = folder.path("shop-flags.overrides.manifest.json")

        let acme = try stowage("flags", "eval", "--manifest", manifest, "new-checkout", "--context", "tenant=acme")
        #expect(acme.status == 0)
        #expect(acme.output == "value           true\nreason          TARGETING_MATCH\nvariant         on\nmetadata.owner  \"checkout\"\n", "\(acme.output)")

        let split = try stowage("flags", "eval", "--manifest", manifest, "new-checkout", "--targeting-key", "user-7", "--json")
        let details = try #require(try JSONSerialization.jsonObject(with: Data(split.output.utf8)) as? [String: Any])
        #expect(details["reason"] as? String == "SPLIT" && ["on", "off"].contains(details["variant"] as? String))

        let fixed = try stowage("flags", "eval", "--manifest", manifest, "rate-limit")
        #expect(fixed.output.hasPrefix("value    10\nreason   STATIC\nvariant  low\n"), "\(fixed.output)")
        let unknown = try stowage("flags", "eval", "--manifest", manifest, "no-such-flag")
        #expect(unknown.status != 0 && unknown.error.contains("no-such-flag"))
        let malformed = try stowage("flags", "eval", "--manifest", manifest, "new-checkout", "--context", "tenant")
        #expect(malformed.status != 0 && malformed.error.contains("--context takes NAME=VALUE; tenant has no name."), "\(malformed.error)")

        let listed = try stowage("flags", "list", "--manifest", manifest)
        let row = try #require(listed.output.split(separator: "\n").first { $0.hasPrefix("new-checkout") })
        #expect(row.contains("targeting"), "\(listed.output)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try stowage("flags", "list", "--manifest", manifest, "--json").output.utf8)) as? [String: Any])
        let flags = try #require(json["flags"] as? [[String: Any]])
        #expect(flags[0]["origin"] as? String == "targeting" && flags[0]["targeting"] is [String: Any])
        #expect(flags[1]["origin"] as? String == "remote" && flags[1]["value"] as? Int == 10)
    }

    @Test func everyCommandHasHelpWithAnExample() throws {
        for command in [
            ["flags"], ["flags", "list"], ["flags", "eval"], ["flags", "set"], ["flags", "reset"], ["flags", "watch"], ["get"], ["set"], ["remove"], ["list"],
            ["watch"], [],
        ] {
            let help = try stowage(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            #expect(help.output.contains("Example"), "\(command)")
        }
        #expect(try stowage("set", "--help").output.contains("is read as a JSON literal"))
    }
}
