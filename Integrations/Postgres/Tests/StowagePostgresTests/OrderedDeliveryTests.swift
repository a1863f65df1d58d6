import Foundation
@testable import StowagePostgres
import StowageLocking
import Testing

/// The listener hands its words to the stores through an `OrderedDelivery`
/// on the thread that produced them: a store must hear them one at a time,
/// in order, even when another thread hands one in meanwhile or a word hands
/// in another.
struct OrderedDeliveryTests {
    @Test func callsFromManyThreadsRunOneAtATimeInEachThreadsOrder() async {
        let delivery = OrderedDelivery()
        let (threads, callsPerThread) = (4, 2_000)
        struct Record {
            var running = false
            var overlapped = false
            var lastIndex: [Int: Int] = [:]
            var outOfOrder = 0
            var count = 0
        }
        let record = Locked(Record())
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for index in 0..<callsPerThread {
                        delivery.deliver {
                            record.withLock { record in
                                if record.running { record.overlapped = true }
                                record.running = true
                                if let last = record.lastIndex[thread], last != index - 1 { record.outOfOrder += 1 }
                                record.lastIndex[thread] = index
                            }
                            record.withLock { record in
                                record.running = false
                                record.count += 1
                            }
                        }
                    }
                }
            }
        }
        let final = record.withLock { $0 }
        #expect(final.count == threads * callsPerThread)
        #expect(!final.overlapped)
        #expect(final.outOfOrder == 0)
    }

    @Test func aCallThatHandsInAnotherRunsItAfterItselfNotInside() {
        let delivery = OrderedDelivery()
        let steps = Locked<[String]>([])
        delivery.deliver {
            steps.withLock { $0.append("first begins") }
            delivery.deliver { steps.withLock { $0.append("second") } }
            steps.withLock { $0.append("first ends") }
        }
        #expect(steps.withLock { $0 } == ["first begins", "first ends", "second"])
    }
}
