#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Synchronization
#if canImport(Darwin)
public import Darwin
#endif

/// A lock for critical sections of a few dozen instructions that call no
/// other code and wait for nothing: a reference's cache and the reference
/// registry's table.
///
/// It lives inside its owner, and costs a fraction of a `pthread_mutex_t`:
/// a values read through a live reference took two of those locks and
/// unlocks, some 150 of its 800 instructions. On Linux it is one atomic word, taken with a
/// compare-and-swap that ThreadSanitizer sees (Swift's `Mutex` locks with
/// futex calls it can not see there); a contended taker spins briefly, then
/// yields the processor until the holder, which never holds it long, lets
/// go. On Apple platforms it is an `os_unfair_lock` of its own allocation,
/// as `Locked` uses there: it never inverts priorities, as a spinning lock
/// may. Never use it for a section that may block (`Locked` is for those).
@usableFromInline
struct ShortLock: ~Copyable, @unchecked Sendable {
    // Sendable: the word is an atomic, and the Apple platforms' lock is only
    // touched through os_unfair_lock's own calls.
    #if canImport(Darwin)
    @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock_s>
    #else
    @usableFromInline let isHeld = Atomic<Bool>(false)
    #endif

    @inlinable
    init() {
        #if canImport(Darwin)
        lock = UnsafeMutablePointer<os_unfair_lock_s>.allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock_s())
        #endif
    }

    #if canImport(Darwin)
    deinit {
        lock.deinitialize(count: 1)
        lock.deallocate()
    }
    #endif

    /// Takes the lock, waiting for it if need be.
    @inlinable
    func acquire() {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #else
        if isHeld.compareExchange(expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged {
            return
        }
        acquireContended()
        #endif
    }

    /// Lets the lock go; only its holder calls it.
    @inlinable
    func release() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #else
        isHeld.store(false, ordering: .releasing)
        #endif
    }

    #if !canImport(Darwin)
    /// Spins a little, since the holder is about to let go; then yields, so
    /// that a holder that lost its processor gets it back.
    @usableFromInline
    func acquireContended() {
        var attempts = 0
        while true {
            if !isHeld.load(ordering: .relaxed),
                isHeld.compareExchange(expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged
            {
                return
            }
            attempts += 1
            if attempts > 100 { sched_yield() }
        }
    }
    #endif
}
