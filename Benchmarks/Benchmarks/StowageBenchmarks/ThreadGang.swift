import Dispatch
import Foundation

/// Real threads that wait at a gate, so that starting them is not measured.
///
/// `run` creates every thread, waits until all are parked at the gate, calls
/// `willStart`, opens the gate and waits for the last one to finish.
enum ThreadGang {
    /// - Parameters:
    ///   - count: the number of threads.
    ///   - willStart: runs on the calling thread just before the gate opens.
    ///   - body: the work of one thread, given its index.
    /// - Returns: the time from opening the gate to the last thread finishing.
    static func run(
        threads count: Int,
        willStart: () -> Void,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> Duration {
        let ready = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            let thread = Thread {
                ready.signal()
                gate.wait()
                body(index)
                finished.leave()
            }
            thread.start()
        }
        for _ in 0..<count { ready.wait() }
        willStart()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count { gate.signal() }
        finished.wait()
        return clock.now - start
    }
}
