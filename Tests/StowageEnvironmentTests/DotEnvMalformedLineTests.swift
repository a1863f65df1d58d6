import Foundation
import StowageEnvironment
import StowageTestSupport
import Testing

/// Lines other dotenv tools skip (issue 14): an error by default, skipped and
/// reported with their line numbers when the store is told to.
struct DotEnvMalformedLineTests {
    let files = TemporaryDirectory()
    static let text = """
        FIRST=1
        KEY: value
        NAME_WITHOUT_EQUALS
        "QUOTED"=x
        export LAST=2
        """

    @Test func aMalformedLineFailsTheFileByDefault() throws {
        let url = files.write(Self.text, to: "strict.env")
        let error = try #require(throws: StorageError.self) { try EnvironmentStore(dotEnv: url, options: .init()) }
        #expect(error.code == .invalidDotEnv)
        #expect(error.message.contains("line 2"))
    }

    @Test func skippingMalformedLinesReadsTheRestAndReportsEachLine() throws {
        ReportedErrors.install()
        let name = "lenient-\(UUID()).env"
        let url = files.write(Self.text, to: name)
        let store = try EnvironmentStore(dotEnv: .init(url: url, skipsMalformedLines: true), variables: [:])
        #expect(try store.value(forKey: "FIRST", as: Int.self) == 1)
        #expect(try store.value(forKey: "LAST", as: Int.self) == 2)
        #expect(store.environmentForChildProcess() == ["FIRST": "1", "LAST": "2"])
        let reports = ReportedErrors.mentioning(name)
        #expect(reports.count == 3, "\(reports)")
        for line in [2, 3, 4] {
            #expect(reports.contains { $0.code == .invalidDotEnv && $0.message.contains("line \(line) was skipped") }, "line \(line): \(reports)")
        }
        #expect(!reports.contains { $0.message.contains("value") && $0.message.contains("KEY: value") }, "a skipped line's text may hold a secret")
    }

    @Test func aQuoteNeverClosedSkipsOnlyItsOwnLine() throws {
        let url = files.write("A=\"open\nB=2\n", to: "quote.env")
        let store = try EnvironmentStore(dotEnv: .init(url: url, skipsMalformedLines: true), variables: [:])
        #expect(store.environmentForChildProcess() == ["B": "2"])
    }
}
