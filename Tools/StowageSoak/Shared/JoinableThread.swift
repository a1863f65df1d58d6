import Dispatch
import Foundation

/// A thread whose end can be waited for. The soak uses real threads rather
/// than tasks, as the store's users do, so that blocking calls (`flock`,
/// `fsync`) never starve the cooperative pool.
final class JoinableThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let finished = finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    func join() {
        finished.wait()
    }
}
