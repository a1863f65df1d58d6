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
    ]

    /// `Fuzz/` at the root of the package.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    @Test(arguments: checks.map { $0.name })
    func everyTargetHasASeedCorpus(target: String) {
        #expect(!inputs(in: "Corpus", of: target).isEmpty)
    }

    @Test(arguments: checks)
    func theSeedCorpusPassesEveryCheck(check: any FuzzCheck.Type) {
        replay(inputs(in: "Corpus", of: check.name), through: check.init())
    }

    @Test(arguments: checks)
    func everyRegressionInputPassesItsCheck(check: any FuzzCheck.Type) {
        replay(inputs(in: "Regressions", of: check.name), through: check.init())
    }

    private func inputs(in folder: String, of target: String) -> [URL] {
        let directory = Self.fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
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
