#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageFuzzing
import Testing

/// Replays the committed seed corpus and every regression input of each fuzz
/// target through the check the fuzzer runs, so `swift test` keeps them
/// passing without libFuzzer.
struct FuzzCorpusReplayTests {
    static let checks: [any FuzzCheck.Type] = [
        JSONParserFuzzCheck.self, DotEnvParserFuzzCheck.self, EnvironmentValueFuzzCheck.self, StorableDecodingFuzzCheck.self,
        JSONLogicFuzzCheck.self, FlagDefinitionsFuzzCheck.self,
    ]

    /// `Tools/Fuzz/` in the package.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/Fuzz")

    /// The note a target's regression folder holds while its fuzzer has found
    /// nothing, so that an empty folder says so rather than by absence.
    static let noFindingsNote = "README.md"

    @Test(arguments: checks.map { $0.name })
    func everyTargetHasASeedCorpus(target: String) {
        #expect(!inputs(in: "Corpus", of: target).isEmpty)
    }

    @Test(arguments: checks)
    func theSeedCorpusPassesEveryCheck(check: any FuzzCheck.Type) {
        replay(inputs(in: "Corpus", of: check.name), through: check.init())
    }

    /// A missing folder fails, so a renamed target or a moved folder can not
    /// make the replay pass by finding nothing to replay.
    @Test(arguments: checks)
    func everyRegressionInputPassesItsCheck(check: any FuzzCheck.Type) throws {
        let folder = Self.fuzzFolder.appendingPathComponent("Regressions").appendingPathComponent(check.name)
        try #require(
            (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) != nil,
            "\(folder.path) is missing: every fuzz target has a regression folder, with a \(Self.noFindingsNote) while it has no findings"
        )
        let files = inputs(in: "Regressions", of: check.name)
        if files.isEmpty {
            let note = try? String(contentsOf: folder.appendingPathComponent(Self.noFindingsNote), encoding: .utf8)
            #expect(note?.contains("no findings") == true, "\(folder.path) is empty: add the findings, or a \(Self.noFindingsNote) saying it has no findings")
        }
        replay(files, through: check.init())
    }

    /// The inputs of a target's folder: every file but hidden ones and the note.
    private func inputs(in folder: String, of target: String) -> [URL] {
        let directory = Self.fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != Self.noFindingsNote }.sorted().map { directory.appendingPathComponent($0) }
    }

    private func replay(_ files: [URL], through check: any FuzzCheck) {
        for file in files {
            do {
                try check.check(Array(Data(contentsOf: file)))
            } catch let violation as PropertyViolation {
                Issue.record("\(file.lastPathComponent): \(violation)")
            } catch {
                Issue.record("\(file.lastPathComponent) could not be read: \(error)")
            }
        }
    }
}
