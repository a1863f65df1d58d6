#if canImport(Darwin)
package import Darwin
#elseif canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// A value that is only ever read or changed under a lock.
///
/// Stowage uses it instead of `Synchronization.Mutex` for two measured
/// reasons: on Linux, Swift 6.3's `Mutex` locks with raw futex calls that
/// ThreadSanitizer can not see, so every access it guards is reported as a
/// race; and its priority-inheriting futex collapses under contention. This
/// type uses `pthread_mutex_t` on Linux and `os_unfair_lock` on Apple
/// platforms, which ThreadSanitizer understands. Store authors may use it for
/// the same reasons.
///
/// ```swift
/// let counts = Locked<[String: Int]>([:])
/// counts.withLock { $0["launchCount", default: 0] += 1 }
/// ```
///
/// Keep a closure inside a struct, not as the state itself (`Locked<Handler>`
/// where `struct Handler { let call: @Sendable () -> Void }`, not
/// `Locked<@Sendable () -> Void>`): a bare closure passes through
/// `withLock`'s generic `inout` and comes back wrapped in one more
/// reabstraction thunk on every access, so each call runs deeper than the
/// last, without bound.
public final class Locked<State: Sendable>: @unchecked Sendable {
    // Safe to share: `state` is touched only inside `withLock`, which holds
    // the lock; the lock lives in its own allocation so its address never
    // moves; and `State` is Sendable, so what `withLock` hands out may cross
    // threads.
    @usableFromInline let lock: OpaquePointer
    /// Exclusivity is guaranteed by the lock, so the runtime check is skipped.
    @exclusivity(unchecked) @usableFromInline var state: State

    /// A lock guarding `initialState`.
    public init(_ initialState: State) {
        state = initialState
        lock = OpaquePointer(PlatformLock.make())
    }

    deinit {
        PlatformLock.destroy(UnsafeMutablePointer(lock))
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// Keep `body` short, and never wait in it for another thread or take
    /// another lock that some other code takes before this one.
    ///
    /// It throws what `body` throws, with its type (as `Synchronization.Mutex`
    /// does), so a caller that throws `StorageError` gets a `StorageError` out.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        acquire()
        defer { release() }
        return try body(&state)
    }

    /// Runs `body` only if the lock is free right now; returns `nil` otherwise.
    ///
    /// For background work that can come back later rather than wait behind
    /// a long holder (a file store's change monitor, say).
    package func withLockIfAvailable<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard PlatformLock.tryAcquire(UnsafeMutablePointer(lock)) else { return nil }
        defer { release() }
        return try body(&state)
    }

    @usableFromInline func acquire() { PlatformLock.acquire(UnsafeMutablePointer(lock)) }
    @usableFromInline func release() { PlatformLock.release(UnsafeMutablePointer(lock)) }
}

extension Locked where State == Void {
    /// Runs `body` holding a lock that guards something outside Swift's
    /// memory (a file, say) rather than a value.
    ///
    /// Prefer it to `withLock { _ in … }`: ThreadSanitizer sees the `inout`
    /// access to an empty value at the object's own address, and reports it
    /// as racing with any unlocked read of the object's type there.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        acquire()
        defer { release() }
        return try body()
    }
}

#if canImport(Darwin)
package typealias PlatformLock = os_unfair_lock_s

extension os_unfair_lock_s {
    package static func make() -> UnsafeMutablePointer<os_unfair_lock_s> {
        let lock = UnsafeMutablePointer<os_unfair_lock_s>.allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock_s())
        return lock
    }

    package static func destroy(_ lock: UnsafeMutablePointer<os_unfair_lock_s>) {
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    package static func acquire(_ lock: UnsafeMutablePointer<os_unfair_lock_s>) { os_unfair_lock_lock(lock) }
    package static func tryAcquire(_ lock: UnsafeMutablePointer<os_unfair_lock_s>) -> Bool { os_unfair_lock_trylock(lock) }
    package static func release(_ lock: UnsafeMutablePointer<os_unfair_lock_s>) { os_unfair_lock_unlock(lock) }
}
#else
package typealias PlatformLock = pthread_mutex_t

extension pthread_mutex_t {
    package static func make() -> UnsafeMutablePointer<pthread_mutex_t> {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        // Fails only for invalid attributes or lack of memory; a default mutex needs neither.
        _ = pthread_mutex_init(lock, nil)
        return lock
    }

    package static func destroy(_ lock: UnsafeMutablePointer<pthread_mutex_t>) {
        _ = pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    package static func acquire(_ lock: UnsafeMutablePointer<pthread_mutex_t>) { _ = pthread_mutex_lock(lock) }
    package static func tryAcquire(_ lock: UnsafeMutablePointer<pthread_mutex_t>) -> Bool { pthread_mutex_trylock(lock) == 0 }
    package static func release(_ lock: UnsafeMutablePointer<pthread_mutex_t>) { _ = pthread_mutex_unlock(lock) }
}
#endif
