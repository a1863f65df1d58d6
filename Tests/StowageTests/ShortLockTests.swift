@testable import Stowage
import StowageTesting
import Testing

struct ShortLockTests {
    /// Eight threads, more than this machine's cores, each add 1 to a plain
    /// integer 20,000 times under the lock: no increment is lost, and under
    /// ThreadSanitizer no access is reported as a race.
    @Test func everyIncrementUnderTheLockCounts() async {
        final class Counter: @unchecked Sendable {
            // Guarded by `lock`.
            let lock = ShortLock()
            var value = 0
        }
        let counter = Counter()
        let threads = 8
        let increments = 20_000
        await runOnParallelThreads(threads) { _ in
            for _ in 0..<increments {
                counter.lock.acquire()
                counter.value += 1
                counter.lock.release()
            }
        }
        #expect(counter.value == threads * increments)
    }
}
