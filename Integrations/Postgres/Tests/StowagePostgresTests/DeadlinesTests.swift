import NIOCore
import PostgresNIO
@testable import StowagePostgres
import StowageLocking
import Testing

/// Every statement and request of the process races an entry of one table
/// of deadlines, kept by one timer. An action must run at its deadline (not
/// before, and not at some later entry's), and never once cancelled.
struct DeadlinesTests {
    private let deadlines = Deadlines(eventLoop: PostgresClient.defaultEventLoopGroup.next())
    /// What the actions tell, in the order they ran.
    private let ran: AsyncStream<Ran>
    private let runs: AsyncStream<Ran>.Continuation

    init() {
        (ran, runs) = AsyncStream.makeStream(of: Ran.self)
    }

    private struct Ran: Sendable {
        let name: String
        let at: NIODeadline
    }

    private func schedule(_ name: String, in timeout: Duration) -> Deadlines.Entry {
        deadlines.schedule(in: timeout) { [runs] in runs.yield(Ran(name: name, at: .now())) }
    }

    @Test func anActionRunsAtItsDeadlineAndNotBefore() async throws {
        let start = NIODeadline.now()
        _ = schedule("due", in: .milliseconds(30))
        let due = try await firstElement(of: ran, within: .seconds(5)) { _ in true }
        #expect(due.at - start >= .milliseconds(30))
    }

    @Test func aCancelledEntryNeverRuns() async throws {
        schedule("cancelled", in: .milliseconds(10)).cancel()
        // Its deadline has long passed once this later one runs, and the timer ran what was due in between.
        _ = schedule("later", in: .milliseconds(40))
        let first = try await firstElement(of: ran, within: .seconds(5)) { _ in true }
        #expect(first.name == "later")
    }

    /// The timer was set for the first entry, ten seconds away; an earlier one moves it.
    @Test func anEarlierEntryIsNotHeldUpByALaterOne() async throws {
        let late = schedule("late", in: .seconds(10))
        defer { late.cancel() }
        _ = schedule("early", in: .milliseconds(20))
        let first = try await firstElement(of: ran, within: .seconds(5)) { _ in true }
        #expect(first.name == "early")
    }

    /// Once the earliest entry is cancelled, the timer set for it finds
    /// nothing due and sets itself for the next; each entry then runs at or
    /// after its own deadline.
    @Test func entriesAfterACancelledEarliestOneStillRun() async throws {
        schedule("cancelled", in: .milliseconds(10)).cancel()
        let start = NIODeadline.now()
        var deadlines: [String: NIODeadline] = [:]
        for index in 0..<50 {
            let delay = TimeAmount.milliseconds(Int64(20 + index % 7 * 5))
            deadlines["\(index)"] = start + delay
            _ = self.deadlines.schedule(at: start + delay) { [runs] in runs.yield(Ran(name: "\(index)", at: .now())) }
        }
        let count = Locked(0)
        let last = try await firstElement(of: ran, within: .seconds(5)) { [deadlines] ran in
            #expect(ran.name != "cancelled")
            #expect(ran.at >= deadlines[ran.name] ?? .distantFuture, "entry \(ran.name) ran before its deadline")
            return count.withLock {
                $0 += 1
                return $0 == deadlines.count
            }
        }
        #expect(count.withLock { $0 } == 50, "the last one to run was \(last.name)")
    }
}
