/// What a run of the conformance suite found: which checks passed, which
/// were skipped and why, and every issue of the checks that failed.
///
/// ``StorageConformanceSuite/run()`` returns it when nothing failed, and
/// ``ConformanceFailure`` carries it when something did. A skipped check is
/// never counted as passed:
///
/// ```swift
/// let report = try await StorageConformanceSuite { MyStore() }.run()
/// #expect(report.skipped.isEmpty, "\(report)")
/// ```
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// A check that did not run, and why.
    public struct SkippedCheck: Sendable, Hashable, CustomStringConvertible {
        /// The check that did not run.
        public let check: ConformanceCheck
        /// Why it did not run, and what would make it run, as a full sentence.
        public let reason: String

        /// The check's name, then the reason.
        public var description: String { "\(check): \(reason)" }
    }

    /// The name of the store type under test.
    public let storeName: String
    /// The checks that ran and found nothing wrong, in the order they ran.
    public internal(set) var passed: [ConformanceCheck] = []
    /// The checks that did not run.
    public internal(set) var skipped: [SkippedCheck] = []
    /// Every issue found, grouped by check in the order the checks ran.
    public internal(set) var issues: [ConformanceIssue] = []

    init(storeName: String) {
        self.storeName = storeName
    }

    /// The checks that found at least one issue, in the order they ran.
    public var failed: [ConformanceCheck] {
        var seen: Set<ConformanceCheck> = []
        return issues.map(\.check).filter { seen.insert($0).inserted }
    }

    /// Whether every check that ran passed. Skipped checks do not make a run unsuccessful.
    public var isSuccessful: Bool { issues.isEmpty }

    /// How many checks ran or were skipped.
    public var checkCount: Int { passed.count + failed.count + skipped.count }

    /// A multi-line summary: counts, then each failed check with its issues, then each skipped check with its reason.
    public var description: String {
        var lines = ["\(storeName): \(passed.count) of \(checkCount) conformance checks passed, \(failed.count) failed, \(skipped.count) skipped."]
        for check in failed {
            lines.append("Failed \(check):")
            for issue in issues where issue.check == check {
                lines.append("  - \(issue.message)")
            }
        }
        for skip in skipped {
            lines.append("Skipped \(skip.check): \(skip.reason)")
        }
        return lines.joined(separator: "\n")
    }
}
