import Foundation
import Stowage
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
    /// key's read: here a read of a key sharing the paused key's pair
    /// finishes while the paused read holds its turn.
    @Test func aReadNeverWaitsForAnotherKeysReadSharingItsParkingPair() throws {
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
        store.changeWithoutAnnouncing(neighbour.key, to: 7)

        store.pauseNextRead()
        let pausedDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = paused.value
            pausedDone.signal()
        }
        store.waitUntilReadIsPaused()
        // Another reader of the paused key parks on the shared pair, so a wake-up there is due once it resumes.
        let waiterDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = paused.value
            waiterDone.signal()
        }
        while ReadsWaitingForTurn.shared.count(for: paused) == 0 { sched_yield() }

        let neighbourDone = DispatchSemaphore(value: 0)
        let neighbourValue = Locked<Int?>(nil)
        Thread.detachNewThread {
            let value = neighbour.value
            neighbourValue.withLock { $0 = value }
            neighbourDone.signal()
        }
        // The bound only ends a failing test, which would otherwise hang until the paused read resumed.
        let finished = neighbourDone.wait(timeout: .now() + 30) == .success
        #expect(finished, "the neighbour's read waited for the paused key's read")
        store.resume()
        pausedDone.wait()
        waiterDone.wait()
        if !finished { neighbourDone.wait() }
        #expect(neighbourValue.withLock { $0 } == 7)
        #expect(paused.value == 1)
    }
}
