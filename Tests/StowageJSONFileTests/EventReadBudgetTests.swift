@testable import StowageJSONFile
import Testing

struct EventReadBudgetTests {
    @Test func readsBackToBackWaitOnlyOnceTheBurstIsSpent() {
        var budget = EventReadBudget()
        let start = ContinuousClock.now
        // 16 reads at the same instant: the first 15 leave a read in hand.
        let waits = (0..<EventReadBudget.burst).map { _ in budget.afterReading(at: start) }
        #expect(waits.dropLast().allSatisfy { $0 == .zero })
        #expect(waits.last == .milliseconds(2))
        // Waiting as told earns exactly the next read, and no more.
        #expect(budget.afterReading(at: start.advanced(by: .milliseconds(2))) == .milliseconds(2))
    }

    @Test func readsAtTheAllowedRateOrSlowerNeverWait() {
        var budget = EventReadBudget()
        var now = ContinuousClock.now
        // An edit every 5 ms with two reads each (the temporary file's events, then the rename): 400 reads a second.
        for _ in 0..<1_000 {
            #expect(budget.afterReading(at: now) == .zero)
            #expect(budget.afterReading(at: now.advanced(by: .microseconds(200))) == .zero)
            now = now.advanced(by: .milliseconds(5))
        }
    }

    @Test func aQuietSpellRestoresTheWholeBurst() {
        var budget = EventReadBudget()
        let start = ContinuousClock.now
        for _ in 0..<EventReadBudget.burst { _ = budget.afterReading(at: start) }
        let later = start.advanced(by: .seconds(1))
        let waits = (0..<EventReadBudget.burst).map { _ in budget.afterReading(at: later) }
        #expect(waits.dropLast().allSatisfy { $0 == .zero })
    }
}
