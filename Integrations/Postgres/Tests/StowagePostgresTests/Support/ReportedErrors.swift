import StowagePostgres

/// Every `StorageError` reported in this test process, from the moment a
/// test first makes a recorder; tests run in parallel, so each looks for its
/// own keys. The store reports from a queue of its own, so a test waits for
/// the report it expects rather than reading the list at once.
final class ReportedErrorsRecorder: Sendable {
    private struct State {
        var reports: [StorageError] = []
        var waiters: [Int: AsyncStream<StorageError>.Continuation] = [:]
        var nextWaiter = 0
    }

    private static let state = Locked(State())
    private static let installed: Bool = {
        StorageError.reportingHandler = { error in
            let waiters = ReportedErrorsRecorder.state.withLock { state in
                state.reports.append(error)
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.yield(error) }
        }
        return true
    }()

    init() { _ = Self.installed }

    /// Runs `body` with reports recorded.
    func recording<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await body()
    }

    /// What has been reported so far.
    var all: [StorageError] { Self.state.withLock { $0.reports } }

    /// The first report `matching` gives `true` for, waiting for it up to `timeout`; `nil` if none came.
    func first(matching: @escaping @Sendable (StorageError) -> Bool, within timeout: Duration = .seconds(30)) async -> StorageError? {
        let (stream, continuation) = AsyncStream.makeStream(of: StorageError.self)
        let (found, id) = Self.state.withLock { state -> (StorageError?, Int) in
            if let found = state.reports.first(where: matching) { return (found, -1) }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = continuation
            return (nil, state.nextWaiter)
        }
        if let found { return found }
        defer { _ = Self.state.withLock { $0.waiters.removeValue(forKey: id) } }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await report in stream where matching(report) { return report }
        return nil
    }
}
