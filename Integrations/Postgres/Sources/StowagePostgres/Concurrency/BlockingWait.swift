import Dispatch
import NIOPosix
import Stowage
import StowageLocking

/// Runs `operation` and blocks the calling thread until it finishes: the
/// bridge from a synchronous requirement (`modify`'s compare-and-swap,
/// `flush()`) to the network.
///
/// The operation starts on the calling thread and goes on where its answer
/// comes (``ImmediateExecutor``): it only queues a request, or takes the
/// step itself, and waits for the reply. Started on the stores' executor
/// instead, a caller's own `modify` woke that thread to start and again to
/// end: two hand-overs the same compare-and-swap awaited from async code
/// does not pay.
///
/// It refuses, with an error that names the async form to use, where
/// blocking could wait forever: on a SwiftNIO event loop thread, which the
/// database connections may be bound to, and on the executor's own thread.
/// - Parameter asyncForm: what to call instead, for the message.
func waitSynchronously<Value: Sendable>(
    for store: String, asyncForm: String, key: String? = nil, _ operation: @escaping @Sendable () async throws(StorageError) -> Value
) throws(StorageError) -> Value {
    if MultiThreadedEventLoopGroup.currentEventLoop != nil || StoreExecutor.shared.isCurrentThread {
        throw StorageError(
            code: .storeFailure, key: key,
            reason: "\(store) was called synchronously on a SwiftNIO event loop thread, where waiting for the database "
                + "could wait forever; call `\(asyncForm)` from async code instead.")
    }
    let outcome = Locked<Result<Value, StorageError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    ImmediateExecutor.shared.start {
        let result: Result<Value, StorageError>
        do throws(StorageError) { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    // The task stored the outcome before it signalled, so this is never nil.
    guard let result = outcome.withLock({ $0 }) else {
        throw StorageError(code: .storeFailure, key: key, reason: "\(store) lost the outcome of a call it waited for.")
    }
    return try result.get()
}
