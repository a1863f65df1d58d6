import Stowage
import StowageLocking
import StowageTesting
import Testing

struct ConcurrencyTests {
    @Test func concurrentModifiesLoseNoIncrement() async {
        let store = CountingStore()
        @Stored("counter", in: store) var counter = 0
        let projection = $counter
        // Threads, not tasks: tasks on a busy two-thread pool need not overlap at all.
        await runOnParallelThreads(8) { _ in
            for _ in 0..<1_000 { projection.modify { $0 += 1 } }
        }
        #expect(counter == 8_000)
    }

    /// Modify only ever sets bits and `set` writes a marker bit alone, so in any
    /// order the marker survives to the end. It is lost only if the default
    /// compare-and-swap's write lands after a `set` that came between its
    /// compare and its write; the slow store widens that window, and only
    /// Stowage's per-key lock closes it.
    @Test func modifyNeverLosesARacingSet() async {
        let marker = 1 << 40
        var lost = 0
        for _ in 0..<20 {
            let store = SlowWritingStore()
            let bits = store.reference(forKey: "bits", as: Int.self)
            await runOnParallelThreads(3) { thread in
                if thread == 0 {
                    for _ in 0..<20 { try? bits.set(marker) }
                } else {
                    for bit in 0..<40 { try? bits.modify { $0 = ($0 ?? 0) | 1 << bit } }
                }
            }
            if (store.storedValue(forKey: "bits", .granted).flatMap { try? Int(storedValue: $0) } ?? 0) & marker == 0 { lost += 1 }
        }
        #expect(lost == 0)
    }

    @Test func manyThreadsGetTheSameReference() async {
        let store = CountingStore()
        let held = store.reference(forKey: "held", as: Int.self)
        let sameAsHeld = Locked(0)
        await runOnParallelThreads(8) { _ in
            for _ in 0..<100 where store.reference(forKey: "held", as: Int.self) === held {
                sameAsHeld.withLock { $0 += 1 }
            }
        }
        #expect(sameAsHeld.withLock { $0 } == 800)
    }

    @Test func readersOnlySeeValuesThatWereWritten() async {
        let store = CountingStore()
        let reference = store.reference(forKey: "pair", as: [Int].self)
        reference.value = [0, 0]
        let tornReads = Locked(0)
        await runOnParallelThreads(8) { thread in
            if thread < 2 {
                for i in 0..<2_000 { reference.value = [thread * 100_000 + i, thread * 100_000 + i] }
            } else {
                for _ in 0..<2_000 {
                    let pair = reference.value ?? []
                    if pair.count != 2 || pair[0] != pair[1] { tornReads.withLock { $0 += 1 } }
                }
            }
        }
        #expect(tornReads.withLock { $0 } == 0)
    }

    @Test func theCacheEndsCoherentAfterRacingWritersAndReaders() async {
        let store = CountingStore()
        let asInt = store.reference(forKey: "value", as: Int.self)
        let asInt64 = store.reference(forKey: "value", as: Int64.self)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for i in 0..<500 {
                        if writer.isMultiple(of: 2) { asInt.value = i } else { asInt64.value = Int64(i) }
                        _ = asInt.value
                        _ = asInt64.value
                    }
                }
            }
        }
        let stored = store.storedValue(forKey: "value", .granted)
        #expect(asInt.value.map { StoredValue.signedInteger(Int64($0)) } == stored)
        #expect(asInt64.value.map { StoredValue.signedInteger($0) } == stored)
    }

    @Test func observersSeeTheFinalValueLastUnderConcurrentWrites() async {
        let store = CountingStore()
        let reference = store.reference(forKey: "value", as: Int.self)
        let last = Locked<Int?>(nil)
        let token = reference.observe { value in last.withLock { $0 = value } }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask { for i in 0..<500 { reference.value = writer * 1_000 + i } }
            }
        }
        reference.value = -1
        #expect(last.withLock { $0 } == -1)
        token.cancel()
    }

    /// Word-sized values are read without a lock; each written value repeats
    /// its low half in its high half, so a torn read would show.
    @Test func lockFreeReadsNeverSeeTornOrStaleValues() async {
        let store = CountingStore()
        let reference = store.reference(forKey: "word", as: UInt64.self)
        reference.value = 0
        let badReadCount = Locked(0)
        await runOnParallelThreads(6) { thread in
            if thread < 2 {
                for i in 0..<3_000 {
                    let half = UInt64((thread + 1) * 100_000 + i)
                    reference.value = half << 32 | half
                }
            } else {
                for _ in 0..<3_000 {
                    let word = reference.value ?? 0
                    if word >> 32 != word & 0xFFFF_FFFF { badReadCount.withLock { $0 += 1 } }
                }
            }
        }
        let badReads = badReadCount.withLock { $0 }
        #expect(badReads == 0)
        // After the race, the lock-free slot agrees with the store, and an external change clears it.
        #expect(reference.value.map { StoredValue.integer($0) } == store.storedValue(forKey: "word", .granted))
        store.changeExternally("word", to: 7)
        #expect(reference.value == 7)
    }
}

/// A lock that guards something outside Swift's memory, the way a file
/// store's lock guards its file.
struct LockWithoutStateTests {
    /// A counter no lock of its own protects, so only the lock keeps the
    /// threads' increments apart.
    private final class UnguardedCounter: @unchecked Sendable {
        var count = 0
    }

    @Test func withLockWithoutStateKeepsThreadsApart() async {
        let lock = Locked(())
        let counter = UnguardedCounter()
        await runOnParallelThreads(4) { _ in
            for _ in 0..<5_000 {
                lock.withLock { counter.count += 1 }
            }
        }
        #expect(counter.count == 20_000)
    }
}
