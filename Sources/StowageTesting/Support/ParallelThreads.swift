import Stowage
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
func runOnParallelThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let arrived = Locked(0)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let finished = Locked(0)
        for index in 0..<count {
            let work = ThreadWork {
                arrived.withLock { $0 += 1 }
                while arrived.withLock({ $0 }) < count { _ = sched_yield() }
                body(index)
                if finished.withLock({ count in
                    count += 1
                    return count
                }) == count {
                    continuation.resume()
                }
            }
            work.start()
        }
    }
}

/// One detached pthread running a closure.
private final class ThreadWork: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let work = Unmanaged<ThreadWork>.fromOpaque(context!).takeRetainedValue()
            work.body()
            return nil
        }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread could be made: run inline, so the check still completes.
            Unmanaged<ThreadWork>.fromOpaque(context).release()
            body()
        }
    }
}
