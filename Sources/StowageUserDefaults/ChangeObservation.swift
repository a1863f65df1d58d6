import Foundation
import Stowage
import StowageLocking

/// Announces changes other code makes to the same `UserDefaults` in this
/// process, where Foundation says so.
///
/// Apple's `UserDefaults` posts `didChangeNotification` for every change, on
/// the thread that made it, without saying which key changed: a change that
/// is not the store's own is announced as a change of any key, and references
/// read again. swift-corelibs-foundation does not post it for `set` or
/// `removeObject` (measured on Linux with Swift 6.3), so there only changes
/// made through Stowage are seen; call `announceChange(forKey:)` after
/// writing to the defaults directly.
final class ChangeObservation: @unchecked Sendable {
    // Sendable: `token` is written once, in `start`, before any other thread
    // can see the store; `writingThreads` is locked.
    private var token: (any NSObjectProtocol)?
    /// Threads inside one of the store's own writes, whose notifications are not news.
    private let writingThreads = Locked<[UInt: Int]>([:])

    func start(for store: UserDefaultsStore) {
        token = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: store.userDefaults, queue: nil
        ) { [weak store, weak self] _ in
            guard let store, let self, !self.isWritingOnThisThread else { return }
            // Posted inside `set`, perhaps while a store holds `UserDefaultsStore.access`:
            // announced afterwards, so an observer that reads the store does not wait for itself.
            DispatchQueue.global().async { store.announceChangeOfAllKeys() }
        }
    }

    /// Runs one of the store's own writes, whose notification it ignores.
    func asOwnChange(_ write: () -> Void) {
        let thread = currentThread
        writingThreads.withLock { $0[thread, default: 0] += 1 }
        defer {
            writingThreads.withLock { threads in
                let depth = threads[thread, default: 1] - 1
                threads[thread] = depth == 0 ? nil : depth
            }
        }
        write()
    }

    private var isWritingOnThisThread: Bool {
        let thread = currentThread
        return writingThreads.withLock { $0[thread] != nil }
    }

    private var currentThread: UInt { currentThreadIdentifier() }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}
