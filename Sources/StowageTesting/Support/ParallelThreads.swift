import Foundation
import Stowage
import StowageLocking
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body(index)` on `count` operating-system threads at once and waits
/// for all of them.
///
/// The concurrency checks use threads rather than tasks because Swift's
/// cooperative pool has as many threads as cores: while other tests occupy
/// them, tasks without suspension points run one after another and never
/// contend, so a store that is not atomic could pass. Threads are preempted
/// and interleaved by the kernel whatever else the process is doing. They
/// start behind a spinning barrier, so they begin as close together as the
/// machine allows.
package func runOnParallelThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    guard count > 0 else { return }
    let arrived = Locked(0)
    let finished = Locked(0)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        for index in 0..<count {
            let thread = Thread {
                arrived.withLock { $0 += 1 }
                while arrived.withLock({ $0 }) < count { _ = sched_yield() }
                body(index)
                let done = finished.withLock { finished in
                    finished += 1
                    return finished
                }
                if done == count { continuation.resume() }
            }
            thread.start()
        }
    }
}
