import Stowage
import StowageLocking

/// Every call the module makes to `UserDefaults` on Linux, one at a time, in
/// all stores.
///
/// swift-corelibs-foundation lost updates when one thread read while another
/// wrote and synchronised: a compare-and-swap under a lock of the key alone
/// lost 1 increment in 2,000 in about half the runs of the conformance
/// suite's concurrent `modify`. Writes are rare and reads mostly come from
/// references' caches, so one lock costs little. Nothing in it calls code of
/// the app's: corelibs posts no notification for `set`, `removeObject` or
/// `synchronize()`, and the store never calls `setPersistentDomain`, which does.
///
/// On Apple platforms there is no lock: `UserDefaults` is thread-safe there,
/// and every write runs the app's change observers (`didChangeNotification`,
/// key-value observing) on the writing thread, which must not hold a lock of
/// Stowage's, or an observer that reads a store would wait for itself.
package enum UserDefaultsAccess {
    #if !canImport(Darwin)
    private static let lock = Locked<Void>(())
    #endif

    /// Runs `body` holding the lock, where there is one.
    package static func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        #if canImport(Darwin)
        return try body()
        #else
        return try lock.withLock(body)
        #endif
    }

    /// Whether a store's compare-and-swap can be atomic on its own: only under the lock.
    static var isLocked: Bool {
        #if canImport(Darwin)
        false
        #else
        true
        #endif
    }
}
