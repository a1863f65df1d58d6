import Foundation
import Stowage
import StowageLocking
import Testing

/// A store applies a change before it announces it, so for a moment reads
/// of the store see the new value while the reference's cache generation is
/// still the old one. Reads that fill the cache in that moment must not let
/// a thread see a key go back to an older value.
struct ReferenceCacheOrderTests {
    /// Two reads missed the cache in one generation: the first took the old
    /// value and was slow, the second took the new value, returned it and
    /// filled the cache; the first then filled the cache with the old value,
    /// so the second thread read the key go back. (Found by the soak: a
    /// counter read through a wrapper as 238 after 239.)
    @Test func aSlowReadNeverReplacesALaterReadInTheCache() throws {
        let store = PausingStore(["count": 1])
        let reference = store.reference(forKey: "count", as: Int.self)
        let earlyDone = DispatchSemaphore(value: 0)
        store.pauseNextRead()
        Thread.detachNewThread {
            _ = reference.value
            earlyDone.signal()
        }
        store.waitUntilReadIsPaused()
        store.changeWithoutAnnouncing("count", to: 2)

        let firstRead = DispatchSemaphore(value: 0)
        let readAgain = DispatchSemaphore(value: 0)
        let secondRead = DispatchSemaphore(value: 0)
        let reads = Locked<[Int?]>([])
        Thread.detachNewThread {
            let first = reference.value
            reads.withLock { $0.append(first) }
            firstRead.signal()
            readAgain.wait()
            let second = reference.value
            reads.withLock { $0.append(second) }
            secondRead.signal()
        }
        // The later read either finishes now, or queues behind the slow one; wait until it has done either.
        var laterFinishedFirst = false
        while !laterFinishedFirst, ReadsWaitingForTurn.shared.count(for: reference) == 0 {
            laterFinishedFirst = firstRead.wait(timeout: .now()) == .success
            if !laterFinishedFirst { sched_yield() }
        }
        store.resume()
        earlyDone.wait()
        if !laterFinishedFirst { firstRead.wait() }
        readAgain.signal()
        secondRead.wait()

        let (first, second) = reads.withLock { ($0[0], $0[1]) }
        let later = try #require(first)
        #expect(try #require(second) >= later, "the thread read \(later), then \(second.map(String.init) ?? "nil")")
        // Once the change is announced every read gives it.
        store.announceChange(forKey: "count")
        #expect(reference.value == 2)
    }

    /// Reads that miss the cache at once make one store read between them,
    /// not one each: the others find the cache filled when their turn comes.
    @Test func concurrentMissesReadTheStoreOnce() throws {
        let store = PausingStore(["count": 5])
        let reference = store.reference(forKey: "count", as: Int.self)
        store.pauseNextRead()
        let finished = DispatchSemaphore(value: 0)
        let results = Locked<[Int?]>([])
        func readOnAThreadOfItsOwn() {
            Thread.detachNewThread {
                let value = reference.value
                results.withLock { $0.append(value) }
                finished.signal()
            }
        }
        readOnAThreadOfItsOwn()
        store.waitUntilReadIsPaused()
        for _ in 0..<4 { readOnAThreadOfItsOwn() }
        store.changeWithoutAnnouncing("count", to: 6)
        // Wait until each of the four has reached the store (as before the fix) or queued behind the first read.
        // The bound only ends a failing test: they are elsewhere then, blocked on some other lock.
        let deadline = ContinuousClock.now + .seconds(30)
        while store.reads - 1 + ReadsWaitingForTurn.shared.count(for: reference) < 4 {
            guard ContinuousClock.now < deadline else {
                Issue.record("the four reads neither reached the store nor queued behind the first read")
                break
            }
            sched_yield()
        }
        store.resume()
        for _ in 0..<5 { finished.wait() }
        // Every read gave the value the one store read took, though the store held 6 before the others ran.
        #expect(results.withLock { $0 } == [5, 5, 5, 5, 5])
        #expect(store.reads == 1)
    }

    /// Waiting readers of different keys can sleep on one of the parking
    /// lot's shared pairs; a read of one key still never waits for another
    /// key's read. Here both keys' turns are held, with a reader of each
    /// parked on the one pair: the neighbour's read finishes, and its waiter
    /// is woken and finishes, while the other key's read is still paused.
    @Test func readsOfKeysSharingAParkingPairNeverWaitForEachOther() throws {
        #if canImport(Darwin)
        // The turn is an os_unfair_lock there; there is no parking lot to share.
        #else
        let store = PausingStore(["paused": 1])
        let paused = store.reference(forKey: "paused", as: Int.self)
        // Kept alive, so each new reference has an address, and so a pair, of its own.
        var candidates: [StorageReference<PausingStore, Int>] = []
        var sharing: StorageReference<PausingStore, Int>?
        for index in 0..<10_000 where sharing == nil {
            let candidate = store.reference(forKey: "other.\(index)", as: Int.self)
            candidates.append(candidate)
            if candidate.storeReadTurnParkingPair == paused.storeReadTurnParkingPair { sharing = candidate }
        }
        let neighbour = try #require(sharing, "no reference among \(candidates.count) shares the paused one's pair")
        let pair = paused.storeReadTurnParkingPair
        store.changeWithoutAnnouncing(neighbour.key, to: 7)

        func readOnAThreadOfItsOwn(_ reference: StorageReference<PausingStore, Int>) -> DispatchSemaphore {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = reference.value
                done.signal()
            }
            return done
        }
        func waitUntilParked(_ count: Int) {
            while ParkingLot.parkedThreads(onPair: pair) < count { sched_yield() }
        }

        let pausedKey = store.pauseNextRead(ofKey: "paused")
        let pausedRead = readOnAThreadOfItsOwn(paused)
        pausedKey.waitUntilPaused()
        let pausedWaiter = readOnAThreadOfItsOwn(paused)
        waitUntilParked(1)

        let neighbourKey = store.pauseNextRead(ofKey: neighbour.key)
        let neighbourRead = readOnAThreadOfItsOwn(neighbour)
        neighbourKey.waitUntilPaused()
        let neighbourWaiter = readOnAThreadOfItsOwn(neighbour)
        waitUntilParked(2)

        // Releasing the neighbour's turn wakes the pair; its waiter must take the turn, the other sleep on.
        neighbourKey.resume()
        // The bounds only end a failing test, which would otherwise hang until the paused read resumed.
        let neighbourFinished = neighbourRead.wait(timeout: .now() + 30) == .success
        let waiterFinished = neighbourWaiter.wait(timeout: .now() + 30) == .success
        #expect(neighbourFinished && waiterFinished, "a read of the neighbour waited for the paused key's read")
        #expect(neighbour.value == 7)

        pausedKey.resume()
        pausedRead.wait()
        // A reader never woken would never finish: bounded, so a failure is a report, not a hang.
        #expect(pausedWaiter.wait(timeout: .now() + 30) == .success, "the paused key's waiter was never woken")
        guard neighbourFinished && waiterFinished else { return }
        #expect(paused.value == 1)
        #endif
    }
}
