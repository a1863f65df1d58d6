import Stowage
import StowageLocking
import Synchronization

/// The hooks and trackers registered in one place (globally, or on one
/// pole), and what to tell when the list changes: poles mark their flags so
/// that reads run the hooks only while there are any.
final class FlagHookList: Sendable {
    private struct State {
        var hooks: [(id: UInt64, hook: any FlagHook)] = []
        var trackers: [(id: UInt64, tracker: @Sendable (FlagTrackingEvent) -> Void)] = []
        var nextID: UInt64 = 0
        var listeners: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())
    /// How many hooks there are, read without the lock on every evaluation that is not a plain read.
    private let hookCount = Atomic<Int>(0)

    var hooks: [any FlagHook] { state.withLock { $0.hooks.map(\.hook) } }
    var trackers: [@Sendable (FlagTrackingEvent) -> Void] { state.withLock { $0.trackers.map(\.tracker) } }
    var isEmpty: Bool { hookCount.load(ordering: .relaxed) == 0 }

    func add(_ hook: any FlagHook) -> FlagHookRegistration {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.hooks.append((state.nextID, hook))
            hookCount.store(state.hooks.count, ordering: .relaxed)
            return state.nextID
        }
        changed()
        // Strong captures here and below: a weak one gives the list a side table, whose address
        // only the object's reference count holds, which LeakSanitizer reports as leaked at exit
        // for the global list. The list holds no registration or token, so nothing cycles.
        return FlagHookRegistration { [self] in
            let removed = state.withLock { state in
                let count = state.hooks.count
                state.hooks.removeAll { $0.id == id }
                hookCount.store(state.hooks.count, ordering: .relaxed)
                return state.hooks.count != count
            }
            if removed { changed() }
        }
    }

    func addTracker(_ tracker: @escaping @Sendable (FlagTrackingEvent) -> Void) -> FlagHookRegistration {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.trackers.append((state.nextID, tracker))
            return state.nextID
        }
        return FlagHookRegistration { [self] in
            state.withLock { state in state.trackers.removeAll { $0.id == id } }
        }
    }

    /// Calls `listener` after every change of the hooks, until the token goes.
    func observe(_ listener: @escaping @Sendable () -> Void) -> ObservationToken {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = listener
            return state.nextID
        }
        return ObservationToken { [self] in _ = state.withLock { $0.listeners.removeValue(forKey: id) } }
    }

    private func changed() {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener() }
    }
}

/// The hooks and trackers every pole runs, before its own.
public enum FlagHooks {
    static let global = FlagHookList()

    /// Runs `hook` around every evaluation of every pole's flags.
    /// - Returns: the registration, to take the hook out again.
    @discardableResult
    public static func add(_ hook: some FlagHook) -> FlagHookRegistration {
        global.add(hook)
    }

    /// Calls `tracker` with every event any pole tracks (``FlagPole/track(_:context:value:attributes:)``).
    /// - Returns: the registration, to take the tracker out again.
    @discardableResult
    public static func addTracker(_ tracker: @escaping @Sendable (FlagTrackingEvent) -> Void) -> FlagHookRegistration {
        global.addTracker(tracker)
    }
}
