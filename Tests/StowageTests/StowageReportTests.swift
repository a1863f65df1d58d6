import Stowage
import StowageTestSupport
import Testing

/// The one handler of reports, read on every report.
struct StowageReportTests {
    init() { ReportedErrors.install() }

    /// The handler was kept as a bare closure in a generic lock, so each
    /// read (one per report) left it wrapped in one more reabstraction thunk:
    /// every report ran deeper and slower than the last, and a process that
    /// reported long enough would overflow its stack. Reading it now leaves it as it was.
    @Test func readingTheHandlerLeavesItAsItWas() {
        let before = uniqueKey("before"), after = uniqueKey("after")
        StorageError(code: .invalidValue, key: before, reason: "a report before the reads").report()
        for _ in 0..<200 { _ = StowageReport.handler }
        StorageError(code: .invalidValue, key: after, reason: "a report after them").report()
        let (first, second) = (ReportedErrors.handlerDepth(forKey: before), ReportedErrors.handlerDepth(forKey: after))
        #expect(first != nil && first == second, "the handler ran \(first ?? -1) frames deep, then \(second ?? -1)")
    }
}
