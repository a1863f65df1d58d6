import NIOCore
import NIOPosix
import PostgresNIO

/// Runs a caller's step: it starts on the caller's thread, at once, and
/// every later job (after the answer came) on the SwiftNIO event loop that
/// hands it over, once that loop is done with the event at hand.
///
/// So the step never waits for a thread of Swift's cooperative pool, nor of
/// the stores' executor, which blocking callers (`modify`, `flush()`) may
/// all hold while they wait for this very step; and it costs no hop between
/// threads. A later job is deferred to the end of the loop's current event,
/// never run inside it: run inside postgres-nio's delivery of an answer, it
/// would read the next rows before the connection had finished with the
/// last. A job handed over by the stores' executor (the worker answered
/// the request) runs there, after the job at hand, and one handed over by
/// any other thread goes to an event loop.
/// Only short work that never blocks runs here: a step takes the store's
/// lock and sends statements, nothing more.
final class ImmediateExecutor: TaskExecutor {
    static let shared = ImmediateExecutor()

    /// Set on a thread while it starts a task here, whose first job runs there and then.
    private let starting = ThreadSpecificVariable<Starting>()
    private final class Starting: Sendable {}

    private init() {}

    /// Starts `operation` on the calling thread; it runs there until it first waits.
    func start(_ operation: sending @escaping @isolated(any) () async -> Void) {
        let wasStarting = starting.currentValue
        starting.currentValue = Starting()
        defer { starting.currentValue = wasStarting }
        Task(executorPreference: self, operation: operation)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if starting.currentValue != nil {
            job.runSynchronously(on: asUnownedTaskExecutor())
            return
        }
        if let eventLoop = MultiThreadedEventLoopGroup.currentEventLoop {
            eventLoop.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        } else if StoreExecutor.shared.isCurrentThread {
            StoreExecutor.shared.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        } else {
            PostgresClient.defaultEventLoopGroup.any().execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
