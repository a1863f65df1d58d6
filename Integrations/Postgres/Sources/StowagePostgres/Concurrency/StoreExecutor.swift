#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Stowage
import StowageLocking

/// The one thread every PostgreSQL store's own tasks run on.
///
/// The synchronous API (`modify`, `flush()`, `waitUntilReady`) blocks its
/// caller until a task of the store's has talked to the database. Were that
/// task on Swift's cooperative pool (as wide as the machine has cores), a few
/// callers blocked on it from async code would take every thread of the pool
/// and the task could never run. On this thread of its own it always can.
/// Only the stores' bookkeeping runs here; the network I/O runs on SwiftNIO's
/// event loops.
final class StoreExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = StoreExecutor()

    /// What the thread runs: a job of a task that prefers this executor, or
    /// a call handed over by ``ImmediateExecutor`` (a job of its own).
    private enum Work {
        case job(UnownedJob)
        case call(@Sendable () -> Void)
    }

    /// Guards `jobs`; the thread sleeps on it while there are none.
    private let condition = NSCondition()
    private var jobs: [Work] = []
    /// The executor's thread, set once it runs; read to refuse blocking calls made on it.
    private let threadIdentifier = Locked<UInt64>(0)

    private init() {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = "Stowage PostgreSQL stores"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        append(.job(UnownedJob(job)))
    }

    /// Runs `call` on the thread, after the work queued before it.
    func execute(_ call: @escaping @Sendable () -> Void) {
        append(.call(call))
    }

    private func append(_ work: Work) {
        condition.lock()
        jobs.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Whether the calling thread is this executor's: a blocking wait there would wait for itself.
    var isCurrentThread: Bool {
        threadIdentifier.withLock { $0 } == currentThreadIdentifier()
    }

    private func runJobs() {
        threadIdentifier.withLock { $0 = currentThreadIdentifier() }
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for work in batch {
                switch work {
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .call(let call): call()
                }
            }
        }
    }
}

/// An identifier of the calling thread, comparable between threads.
func currentThreadIdentifier() -> UInt64 {
    #if canImport(Darwin)
    var identifier: UInt64 = 0
    pthread_threadid_np(nil, &identifier)
    return identifier
    #else
    return UInt64(pthread_self())
    #endif
}
