import StowageLocking
import StowagePostgres

/// What the process reported, errors and store events, from the moment a
/// test first asks for them; tests run in parallel, so each looks for its
/// own keys or stores. The store reports from a queue of its own, so a test
/// waits for the report it expects rather than reading the list at once.
enum RecordedReports {
    /// Every `StorageError` reported since the first test asked.
    static var errors: ReportLog<StorageError> { installed.errors }

    /// Every `StoreEvent` reported since the first test asked.
    static var events: ReportLog<StoreEvent> { installed.events }

    /// The one handler, installed once, sorting reports into the two logs.
    private static let installed: (errors: ReportLog<StorageError>, events: ReportLog<StoreEvent>) = {
        let errors = ReportLog<StorageError>()
        let events = ReportLog<StoreEvent>()
        StowageReport.handler = { report in
            switch report {
            case .error(let error): errors.record(error)
            case .event(let event): events.record(event)
            }
        }
        return (errors, events)
    }()
}

/// Reports of one kind, in order, with waiting for one that matches.
final class ReportLog<Report: Sendable>: Sendable {
    private struct State {
        var reports: [Report] = []
        var waiters: [Int: AsyncStream<Report>.Continuation] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())

    func record(_ report: Report) {
        let waiters = state.withLock { state in
            state.reports.append(report)
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.yield(report) }
    }

    /// Runs `body`; for readability where a test's reports come from one stretch.
    func recording<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await body()
    }

    /// What has been reported so far.
    var all: [Report] { state.withLock { $0.reports } }

    /// The first report `matching` gives `true` for, waiting for it up to `timeout`; `nil` if none came.
    func first(matching: @escaping @Sendable (Report) -> Bool, within timeout: Duration = .seconds(30)) async -> Report? {
        let (stream, continuation) = AsyncStream.makeStream(of: Report.self)
        let (found, id) = state.withLock { state -> (Report?, Int) in
            if let found = state.reports.first(where: matching) { return (found, -1) }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = continuation
            return (nil, state.nextWaiter)
        }
        if let found { return found }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        for await report in stream where matching(report) { return report }
        return nil
    }
}
