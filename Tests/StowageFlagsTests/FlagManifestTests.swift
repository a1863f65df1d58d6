import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// The manifest a tool works from, and the checks it makes with it.
struct FlagManifestTests {
    @Test func aManifestWrittenBesideTheOverridesReadsBackWhole() throws {
        let directory = TemporaryDirectory()
        let overrides = JSONFileStore(url: directory.url("flags.json"), options: .init(keyLayout: .nested(separator: ".")))
        let remote = JSONFileStore(url: directory.url("remote.json"))
        let flags = try FlagPole(SharedFlags(), keyStrategy: StorageKeyStrategy(caseStyle: .snakeCase, prefix: "app"), overrides: overrides, remote: remote)
        let url = try flags.writeManifest()
        #expect(url.path() == directory.file("flags.manifest.json"))
        let manifest = try FlagManifest(contentsOf: url)
        #expect(manifest == flags.manifest)
        #expect(manifest.container == "SharedFlags")
        #expect(manifest.keyStrategy == StorageKeyStrategy(caseStyle: .snakeCase, prefix: "app"))
        #expect(manifest.overrides == FlagFileLocation(path: directory.file("flags.json"), keyLayout: .nested(separator: ".")))
        #expect(manifest.remote?.path == directory.file("remote.json"))
        #expect(manifest.flags.map(\.key) == ["app.new_checkout", "app.rate_limit", "app.theme", "app.search.vector_index", "app.search.model"])
        #expect(manifest.flag(forKey: "app.theme")?.type.kind == .choice(["light", "dark", "sepia"]))
        #expect(manifest.flag(forKey: "app.search.model")?.groups == [FlagGroupDefinition(name: "search", description: "Search")])
    }

    /// The manifest says where the flags' configurations are kept and how
    /// the program's splits bucket, so a tool evaluates a flag as the
    /// program does; a manifest written before either existed reads the defaults.
    @Test func aManifestCarriesTheBucketingAndWhereConfigurationsAreKept() throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(
            SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")), remote: JSONFileStore(url: directory.url("remote.json")),
            options: FlagPole.Options(fractionalBucketing: .flagdGo))
        try flags.update(
            with: Data(
                #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"fractional": [["on", 1], ["off", 1]]}}}}"#
                    .utf8))
        let manifest = try FlagManifest(contentsOf: try flags.writeManifest())
        #expect(manifest.fractionalBucketing == .flagdGo && manifest.configurationsKey == FlagPole<SharedFlags>.configurationsKey)
        let tool = try FlagConsole(manifest)
        #expect(tool.configurations["new-checkout"]?.hasTargeting == true)
        #expect(tool.state(forKey: "new-checkout")?.origin == .targeting)
        for user in 0..<50 {
            let context = EvaluationContext(targetingKey: "user-\(user)")
            #expect(tool.details(forKey: "new-checkout", for: context).variant == flags.details(forKey: "new-checkout", for: context).variant)
        }

        let old = directory.write(
            #"{"format": "stowage-flags", "version": 1, "container": "C", "keyStrategy": {"separator": ".", "caseStyle": "kebab-case"}, "remoteUpdateTimeKey": "t", "flags": []}"#,
            to: "old.json")
        let read = try FlagManifest(contentsOf: old)
        #expect(read.fractionalBucketing == .flagdCore && read.configurationsKey == FlagPole<SharedFlags>.configurationsKey)
        let unknown = directory.write(
            #"{"format": "stowage-flags", "version": 1, "container": "C", "keyStrategy": {"separator": ".", "caseStyle": "kebab-case"}, "remoteUpdateTimeKey": "t", "flags": [], "fractionalBucketing": "dice"}"#,
            to: "unknown.json")
        #expect {
            try FlagManifest(contentsOf: unknown)
        } throws: { error in
            (error as? StorageError)?.message.contains("flagd-go-0.16") == true
        }
    }

    @Test func writingTheSameManifestAgainLeavesTheFileAlone() throws {
        let directory = TemporaryDirectory()
        let flags = try FlagPole(SharedFlags(), overrides: JSONFileStore(url: directory.url("overrides.json")))
        let url = try flags.writeManifest()
        let before = try FileManager.default.attributesOfItem(atPath: url.path())[.systemFileNumber] as? Int
        try flags.writeManifest()
        let after = try FileManager.default.attributesOfItem(atPath: url.path())[.systemFileNumber] as? Int
        #expect(before != nil && before == after)
    }

    @Test func aManifestNeedsAPlaceWhenTheOverridesAreNotInAFile() throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        #expect(throws: StorageError.self) { try flags.writeManifest() }
        #expect(flags.manifest.overrides == nil)
    }

    @Test func aFileThatIsNotAManifestIsRefusedWithItsPath() throws {
        let directory = TemporaryDirectory()
        let notJSON = directory.write("{", to: "broken.json")
        let other = directory.write(#"{"format": "something-else", "version": 1}"#, to: "other.json")
        let later = directory.write(#"{"format": "stowage-flags", "version": 99}"#, to: "later.json")
        let flag =
            #"{"key": "a", "path": ["a"], "description": "", "groups": [], "default": 1, "type": {"name": "Int", "kind": "integer", "signed": true, "bits": 64}}"#
        let manifest =
            #"{"format": "stowage-flags", "version": 1, "container": "C", "keyStrategy": {"separator": ".", "caseStyle": "kebab-case"}, "remoteUpdateTimeKey": "t", "flags": "#
        let twice = directory.write(manifest + "[\(flag), \(flag)]}", to: "twice.json")
        let oddWidth = directory.write(manifest + "[\(flag.replacingOccurrences(of: "64", with: "63"))]}", to: "odd.json")
        #expect(try FlagManifest(contentsOf: directory.write(manifest + "[\(flag)]}", to: "good.json")).flags.map(\.key) == ["a"])
        for (url, expected) in [
            (notJSON, "not JSON"), (other, "format"), (later, "version 99"), (twice, "a key no other flag has"), (oddWidth, "8, 16, 32 or 64"),
        ] {
            #expect {
                try FlagManifest(contentsOf: url)
            } throws: { error in
                (error as? StorageError)?.message.contains(expected) == true
            }
        }
        #expect(throws: StorageError.self) { try FlagManifest(contentsOf: directory.url("missing.json")) }
    }

    @Test func aTypeChecksAValueWithoutTheProgramsCode() throws {
        let bool = FlagType(name: "Bool", kind: .bool)
        #expect(try bool.checked(true, forKey: "k") == true)
        #expect(throws: StorageError.self) { try bool.checked("maybe", forKey: "k") }
        let byte = FlagType(name: "UInt8", kind: .integer(isSigned: false, bitWidth: 8))
        #expect(try byte.checked(255, forKey: "k") == 255)
        #expect(try byte.checked(3.0, forKey: "k") == 3)
        for bad: StoredValue in [256, -1, 1.5, "3"] {
            #expect(throws: StorageError.self) { try byte.checked(bad, forKey: "k") }
        }
        #expect {
            try byte.checked(256, forKey: "limit")
        } throws: { error in
            (error as? StorageError)?.message == #"Key "limit": UInt8 takes a whole number from 0 to 255; found 256, which is out of range."#
        }
        let wide = FlagType(name: "Int", kind: .integer(isSigned: true, bitWidth: 64))
        #expect(try wide.checked(.signedInteger(.min), forKey: "k") == .signedInteger(.min))
        #expect(throws: StorageError.self) { try wide.checked(.unsignedInteger(.max), forKey: "k") }
        let unsigned = FlagType(name: "UInt64", kind: .integer(isSigned: false, bitWidth: 64))
        #expect(try unsigned.checked(.unsignedInteger(.max), forKey: "k") == .unsignedInteger(.max))
        #expect(throws: StorageError.self) { try unsigned.checked(-1, forKey: "k") }
        #expect(try FlagType(name: "Double", kind: .floatingPoint).checked(2, forKey: "k") == 2.0)
        let theme = FlagType(name: "Theme", kind: .choice(["light", "dark"]))
        #expect(try theme.checked("dark", forKey: "k") == "dark")
        #expect {
            try theme.checked("purple", forKey: "theme")
        } throws: { error in
            let error = error as? StorageError
            return error?.key == "theme" && error?.message == #"Key "theme": Theme takes one of "light", "dark"; found "purple"."#
        }
        #expect(try FlagType(name: "Limits", kind: .other).checked(["burst": 1], forKey: "k") == ["burst": 1])
        #expect(throws: StorageError.self) { try FlagType(name: "Limits", kind: .other).checked(.null, forKey: "k") }
    }
}
