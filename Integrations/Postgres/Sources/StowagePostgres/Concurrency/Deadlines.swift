import NIOCore
import PostgresNIO
import StowageLocking

/// The deadlines of every store's statements and requests in the process,
/// kept by one timer.
///
/// Each statement and each caller's request races a deadline, and nearly
/// always wins. A timer of its own for each cost an event loop two wake-ups
/// (one to set it, one to cancel it) or a sleeping task, on every read and
/// write. Here a deadline is an entry in a table: the one timer is set for
/// the earliest entry and moved only when a new one comes before it;
/// cancelling removes the entry and leaves the timer, which, when it fires
/// with nothing due, sets itself for the next. Actions run on the timer's
/// event loop and must not block.
final class Deadlines: Sendable {
    static let shared = Deadlines(eventLoop: PostgresClient.defaultEventLoopGroup.next())

    /// A deadline set with ``Deadlines/schedule(in:_:)``; ``cancel()`` before it passes and its action never runs.
    struct Entry: Sendable {
        fileprivate let deadlines: Deadlines
        fileprivate let id: UInt64

        func cancel() {
            deadlines.state.withLock { _ = $0.entries.removeValue(forKey: id) }
        }
    }

    private struct Pending {
        let deadline: NIODeadline
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Pending] = [:]
        var nextID: UInt64 = 0
        /// When the timer is set to fire; `nil` while none is set.
        var timerDeadline: NIODeadline?
    }

    private let state = Locked(State())
    private let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `action` once `timeout` has passed, unless the entry is cancelled first.
    func schedule(in timeout: Duration, _ action: @escaping @Sendable () -> Void) -> Entry {
        schedule(at: .now() + TimeAmount(saturating: timeout), action)
    }

    /// Runs `action` at `deadline`, unless the entry is cancelled first.
    func schedule(at deadline: NIODeadline, _ action: @escaping @Sendable () -> Void) -> Entry {
        let id = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Pending(deadline: deadline, action: action)
            if state.timerDeadline.map({ deadline < $0 }) ?? true { setTimer(at: deadline, in: &state) }
            return state.nextID
        }
        return Entry(deadlines: self, id: id)
    }

    /// Sets the timer for `deadline`. A timer set before it is left to fire:
    /// it finds nothing due, or what is due, and cancelling it would cost the
    /// event loop a wake-up too.
    private func setTimer(at deadline: NIODeadline, in state: inout State) {
        state.timerDeadline = deadline
        eventLoop.scheduleTask(deadline: deadline) { [self] in fire() }
    }

    /// Runs the actions that are due, and sets the timer for the earliest of the rest.
    private func fire() {
        let now = NIODeadline.now()
        let due = state.withLock { state -> [Pending] in
            var due: [Pending] = []
            var earliest: NIODeadline?
            for (id, entry) in state.entries {
                if entry.deadline <= now {
                    due.append(entry)
                    state.entries[id] = nil
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            // A timer set for later than the earliest (or none at all, or this one) is set again.
            if let timerDeadline = state.timerDeadline, timerDeadline <= now { state.timerDeadline = nil }
            if let earliest, state.timerDeadline.map({ earliest < $0 }) ?? true { setTimer(at: earliest, in: &state) }
            return due
        }
        for entry in due { entry.action() }
    }
}
