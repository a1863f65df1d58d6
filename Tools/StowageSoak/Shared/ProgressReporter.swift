import Foundation
import Stowage
import StowageLocking
import Synchronization

/// Operations completed by one thread, read by the progress reporter.
final class ThreadProgress: Sendable {
    let operations = Atomic<Int>(0)
}

/// Prints a child's progress once a second for the coordinator's watchdog,
/// and samples memory once the warm-up is over.
final class ProgressReporter: Sendable {
    private final class Shared: Sendable {
        let running = Atomic<Bool>(true)
        let warmUpSample = Locked<MemorySample?>(nil)
    }

    private let shared = Shared()
    private let thread: JoinableThread

    init(progress: [ThreadProgress], warmUpEnd: ContinuousClock.Instant) {
        let shared = shared
        thread = JoinableThread(name: "progress") {
            while shared.running.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 1)
                let counts = progress.map { $0.operations.load(ordering: .relaxed) }
                let memory = MemorySample.current()
                if ContinuousClock.now >= warmUpEnd { shared.warmUpSample.withLock { $0 = $0 ?? memory } }
                // The slowest thread's count tells the watchdog whether every thread still moves.
                ChildChannel.send(ChildChannel.progress, "\(counts.reduce(0, +))", "\(counts.min() ?? 0)", "\(memory.residentKiB)")
            }
        }
    }

    /// Memory when the warm-up ended, if it has.
    var memoryAfterWarmUp: MemorySample? { shared.warmUpSample.withLock { $0 } }

    func stop() {
        shared.running.store(false, ordering: .relaxed)
        thread.join()
    }
}
