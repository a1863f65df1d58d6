import Stowage
import StowageLocking

/// The values an observer has received, for a test to wait on: the test
/// resumes the moment the value it waits for arrives, instead of polling
/// with sleeps; the timeout only bounds a failing test.
///
/// ```swift
/// let arrivals = Arrivals<Int?>()
/// let token = reference.observe { arrivals.receive($0) }
/// #expect(await arrivals.wait(for: 2))
/// ```
public final class Arrivals<Value: Equatable & Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let value: Value
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var latest: Value?
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waiters whose time ran out before they were registered.
        var expired: Set<Int> = []
    }

    private let state = Locked(State())

    public init() {}

    /// The last value received, if any.
    public var latest: Value? { state.withLock { $0.latest } }

    /// Records `value` and resumes whoever waits for it.
    public func receive(_ value: Value) {
        let ready = state.withLock { state -> [Waiter] in
            state.latest = value
            let ready = state.waiters.filter { $0.value == value }
            state.waiters.removeAll { $0.value == value }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Waits until `value` is the latest value received: `true` when it is,
    /// `false` if `timeout` passed first.
    public func wait(for value: Value, timeout: Duration = .seconds(30)) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let outcome = self.state.withLock { state -> Bool? in
                        if state.latest == value { return true }
                        if state.expired.remove(id) != nil { return false }
                        state.waiters.append(Waiter(id: id, value: value, continuation: continuation))
                        return nil
                    }
                    if let outcome { continuation.resume(returning: outcome) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.expire(id)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Resumes the waiter `id` with `false`, if it still waits.
    private func expire(_ id: Int) {
        let expired = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return nil
            }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
    }
}
