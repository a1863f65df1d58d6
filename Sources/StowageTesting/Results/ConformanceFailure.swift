/// The error the conformance suite throws when a store fails one or more checks.
///
/// Its description lists every failed check with full-sentence messages
/// saying what was expected and what came back, so a test framework that
/// prints thrown errors (Swift Testing, XCTest) shows everything at once.
///
/// ```swift
/// do {
///     try await StorageConformanceSuite { MyStore() }.run()
/// } catch {
///     print(error.failedChecks)   // [.roundTripOfScalars, .externalChange]
/// }
/// ```
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The whole run: what passed and what was skipped, as well as every issue.
    public let report: ConformanceReport

    init(report: ConformanceReport) {
        self.report = report
    }

    /// Every issue found.
    public var issues: [ConformanceIssue] { report.issues }

    /// The checks that found at least one issue, in the order they ran.
    public var failedChecks: [ConformanceCheck] { report.failed }

    /// The report's summary: counts, each failed check with its issues, and each skipped check.
    public var description: String { report.description }
}
