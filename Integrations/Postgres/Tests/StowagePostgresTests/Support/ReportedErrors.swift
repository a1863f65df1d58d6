import StowagePostgres

/// Every `StorageError` reported in this test process, from the moment a
/// test first asks; tests run in parallel, so each looks for its own keys.
final class ReportedErrorsRecorder: Sendable {
    private static let reports = Locked<[StorageError]>([])
    private static let installed: Bool = {
        StorageError.reportingHandler = { error in ReportedErrorsRecorder.reports.withLock { $0.append(error) } }
        return true
    }()

    init() { _ = Self.installed }

    /// Runs `body` with reports recorded.
    func recording<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await body()
    }

    var all: [StorageError] { Self.reports.withLock { $0 } }
}
