@testable import StowagePostgres
import Stowage
import Testing

/// The one-shot answers the store's tasks wait on have more than one waiter
/// at times: `run()` waits for its worker and its pool against the same
/// give-up signal. Each waiter must be answered; a waiter that is dropped
/// instead hangs its task forever and makes Swift print
/// "leaked its continuation" at shutdown.
struct SharedOutcomeTests {
    @Test func everyWaiterOfAFirstOutcomeGetsIt() async throws {
        let outcome = FirstOutcome<Int>()
        let waits = (0..<3).map { _ in Task { try await outcome.value() } }
        try await Self.untilWaiting(3) { outcome.waiterCount }
        outcome.resolve(.success(7))
        for wait in waits { #expect(try await wait.value == 7) }
    }

    @Test func everyWaiterOfAPendingReplyGetsIt() async throws {
        let reply = PendingReply<Int>()
        let waits = (0..<3).map { _ in Task { () async throws(StorageError) -> Int in try await reply.value() } }
        try await Self.untilWaiting(3) { reply.waiterCount }
        reply.resolve(.success(7))
        for wait in waits { #expect(try await wait.value == 7) }
    }

    /// Until `count` callers wait; fails the test, without awaiting the callers, when they never all do.
    private static func untilWaiting(_ count: Int, _ waiting: () -> Int) async throws {
        for _ in 0..<100_000 where waiting() < count { await Task.yield() }
        try #require(waiting() == count, "\(count) callers should be waiting at once")
    }
}
