import Dispatch
import StowageLocking
import Testing

struct LockedTests {
    /// Unguarded, 8 threads' `+= 1`s lose updates; under the lock none is lost.
    @Test func withLockLetsOneThreadAtATimeChangeTheState() {
        let count = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 { count.withLock { $0 += 1 } }
        }
        #expect(count.withLock { $0 } == 40_000)
    }

    struct Refusal: Error, Equatable { let reason: String }

    /// The closure's error comes out with its type, and what the closure
    /// changed before throwing stays changed, as with `Mutex`.
    @Test func withLockThrowsTheClosuresErrorWithItsType() {
        let names = Locked<[String]>([])
        let thrown: Refusal? = {
            do throws(Refusal) {
                try names.withLock { (names: inout [String]) throws(Refusal) in
                    names.append("ada")
                    throw Refusal(reason: "full")
                }
                return nil
            } catch {
                return error
            }
        }()
        #expect(thrown == Refusal(reason: "full"))
        #expect(names.withLock { $0 } == ["ada"])
        #expect(names.withLock { $0.count } == 1, "the lock was released after the throw")
    }

    /// `withLockIfAvailable` gives up at once while another thread holds the
    /// lock, and takes it once that thread lets go.
    @Test func withLockIfAvailableGivesUpWhileAnotherThreadHoldsTheLock() {
        let state = Locked("free")
        let held = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            state.withLock { value in
                value = "held"
                held.signal()
                letGo.wait()
            }
            done.signal()
        }
        held.wait()
        #expect(state.withLockIfAvailable { $0 } == nil)
        letGo.signal()
        done.wait()
        #expect(state.withLockIfAvailable { $0 } == "held")
    }

    /// `Locked(())` guards a section rather than a value.
    @Test func aLockOfNothingGuardsASection() {
        let section = Locked(())
        let inside = Locked(0), overlaps = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<1_000 {
                section.withLock {
                    if inside.withLock({ value in
                        value += 1; return value
                    }) > 1 {
                        overlaps.withLock { $0 += 1 }
                    }
                    inside.withLock { $0 -= 1 }
                }
            }
        }
        #expect(overlaps.withLock { $0 } == 0)
    }
}
