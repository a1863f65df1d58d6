import ServiceLifecycleTestKit
import StowageLocking
@testable import StowagePostgres
import Testing

/// Runs the stores a test opens, as a server's `ServiceGroup` would, and
/// shuts them down gracefully when the test ends: every suite that opens
/// stores carries the `.runsStores` trait.
final class RunningStores: Sendable {
    @TaskLocal static var current: RunningStores?

    private let runs = Locked<[Task<Void, Never>]>([])

    /// Runs `store` until the test ends.
    /// - Throws: when the test does not carry `.runsStores`.
    static func run(_ store: PostgresStore) throws {
        guard let current else { throw NotRunningStores() }
        // On the stores' own thread, not the shared pool: tests block its threads in synchronous
        // calls (`waitUntilReady`, a worker's exit), and with two cores they could take every
        // thread a run needs to begin.
        let run = Task(executorPreference: StoreExecutor.shared) {
            do {
                try await store.run()
            } catch {
                Issue.record(error, "\(store) could not run")
            }
        }
        current.runs.withLock { $0.append(run) }
    }

    fileprivate func waitForAll() async {
        for run in runs.withLock({ $0 }) { await run.value }
    }
}

struct NotRunningStores: Error, CustomStringConvertible {
    var description: String { "the test opens a store without the .runsStores trait, so nothing would run it" }
}

/// Gives each test a ``RunningStores``, and shuts its stores down gracefully
/// (their queued writes committed) when it ends, before the next begins.
struct RunsStores: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> RunsStores? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let stores = RunningStores()
        try await testGracefulShutdown { trigger in
            let outcome: Result<Void, any Error>
            do {
                try await RunningStores.$current.withValue(stores) { try await function() }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            trigger.triggerGracefulShutdown()
            await stores.waitForAll()
            try outcome.get()
        }
    }
}

extension Trait where Self == RunsStores {
    /// Runs the stores the test opens, and shuts them down when it ends.
    static var runsStores: RunsStores { RunsStores() }
}
