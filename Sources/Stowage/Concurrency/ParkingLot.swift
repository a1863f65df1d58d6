#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a thread sleeps until a condition on some object holds, without the
/// object owning a lock of its own that it could sleep on.
///
/// An object whose waits are rare (a reference's store-read turn, say) keeps
/// a word of atomics instead of a platform mutex: a mutex was 64 bytes and an
/// allocation for every live reference. Its few waiters sleep here, on one of
/// a fixed set of mutex and condition pairs chosen by the object's address.
/// Objects that share a pair only wake each other's waiters for a recheck;
/// no one ever waits for another object's condition, so sharing adds no order
/// between locks and no deadlock.
package enum ParkingLot {
    /// Sleeps until `condition` is true. `condition` is checked holding the
    /// object's pair, so a change made before ``wakeAll(parkedOn:)`` is never missed.
    static func park(on object: AnyObject, until condition: () -> Bool) {
        let index = pairs.index(for: object)
        let pair = pairs.pair(at: index)
        pthread_mutex_lock(pair.mutex)
        while !condition() {
            pairs.parked[index] += 1
            pthread_cond_wait(pair.condition, pair.mutex)
            pairs.parked[index] -= 1
        }
        pthread_mutex_unlock(pair.mutex)
    }

    /// How many threads sleep on the pair at `index` now, for tests that must
    /// know a thread is parked, not only on its way there.
    package static func parkedThreads(onPair index: Int) -> Int {
        let pair = pairs.pair(at: index)
        pthread_mutex_lock(pair.mutex)
        defer { pthread_mutex_unlock(pair.mutex) }
        return pairs.parked[index]
    }

    /// Wakes every thread parked on `object` (and on the objects sharing its
    /// pair, which check their conditions again and sleep on).
    static func wakeAll(parkedOn object: AnyObject) {
        let pair = pairs.pair(for: object)
        pthread_mutex_lock(pair.mutex)
        pthread_cond_broadcast(pair.condition)
        pthread_mutex_unlock(pair.mutex)
    }

    /// Which of the pairs `object` parks on, for tests that need two objects sharing one.
    package static func pairIndex(for object: AnyObject) -> Int { pairs.index(for: object) }

    private static let pairs = Pairs()

    /// The pairs, made once and never freed.
    private final class Pairs: @unchecked Sendable {
        // Sendable: the pointers never change, and what they point to is
        // used only through pthread calls, which are thread-safe.
        /// Enough that unrelated objects seldom share one; about 5 KB in all.
        static let count = 64  // 2^6: `pair(for:)` takes the top 6 bits
        let mutexes = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: count)
        let conditions = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: count)
        /// Threads asleep on each pair; each count is guarded by its pair's mutex.
        let parked = UnsafeMutablePointer<Int>.allocate(capacity: count)

        init() {
            parked.initialize(repeating: 0, count: Self.count)
            for index in 0..<Self.count {
                (mutexes + index).initialize(to: pthread_mutex_t())
                (conditions + index).initialize(to: pthread_cond_t())
                // Fail only for invalid attributes or lack of memory; defaults need neither.
                _ = pthread_mutex_init(mutexes + index, nil)
                _ = pthread_cond_init(conditions + index, nil)
            }
        }

        func pair(for object: AnyObject) -> (mutex: UnsafeMutablePointer<pthread_mutex_t>, condition: UnsafeMutablePointer<pthread_cond_t>) {
            pair(at: index(for: object))
        }

        func pair(at index: Int) -> (mutex: UnsafeMutablePointer<pthread_mutex_t>, condition: UnsafeMutablePointer<pthread_cond_t>) {
            (mutexes + index, conditions + index)
        }

        func index(for object: AnyObject) -> Int {
            // Fibonacci hashing: objects of one size lie at a fixed stride,
            // which the low bits of the address would map onto a few pairs.
            let mixed = UInt64(UInt(bitPattern: ObjectIdentifier(object))) &* 0x9E37_79B9_7F4A_7C15
            return Int(mixed >> 58)
        }
    }
}
