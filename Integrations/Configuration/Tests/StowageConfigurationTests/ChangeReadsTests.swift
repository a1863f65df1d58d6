@testable import StowageConfiguration
import StowageLocking
import Testing

/// The sequence behind `watchValue` and `watchSnapshot`: one read per signal, unchanged reads skipped.
struct ChangeReadsTests {
    @Test func aReadEqualToTheLastDeliveredIsSkipped() async {
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self)
        let values = Locked([1, 1, 2, 2, 1])
        let reads = ChangeReads(signals: signals, isUnchanged: { $0 == $1 }) {
            values.withLock { $0.removeFirst() }
        }
        for _ in 0..<5 { continuation.yield() }
        continuation.finish()
        var delivered: [Int] = []
        for await value in reads { delivered.append(value) }
        #expect(delivered == [1, 2, 1])
    }

    @Test func readsHappenWhenTheConsumerAsksNotWhenSignalled() async {
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self)
        let current = Locked(1)
        let reads = ChangeReads(signals: signals, isUnchanged: { _, _ in false }) { current.withLock { $0 } }
        continuation.yield()
        current.withLock { $0 = 2 }
        var iterator = reads.makeAsyncIterator()
        #expect(await iterator.next() == 2)
    }
}
