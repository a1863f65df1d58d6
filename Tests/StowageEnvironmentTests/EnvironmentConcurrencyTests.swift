import Dispatch
import Foundation
import StowageEnvironment
import StowageLocking
import StowageTestSupport
import Testing

/// Readers and writers together on one store for ten seconds.
struct EnvironmentConcurrencyTests {
    /// Eight threads read through wrappers while four write through the
    /// store; every read is a value some writer wrote (or the default), and
    /// the process environment is never touched. Two seconds under a
    /// sanitizer (see `TestScale`).
    @Test func wrappersReadWhileTheStoreIsWrittenForTenSeconds() throws {
        let store = EnvironmentStore(variables: ["SPEED": "0", "LABEL": "start"])
        let environmentBefore = ProcessInfo.processInfo.environment
        struct Reader {
            @EnvironmentStorage var speed: Int
            @EnvironmentStorage var label: String
            init(store: EnvironmentStore) {
                _speed = EnvironmentStorage(wrappedValue: -1, "speed", in: store)
                _label = EnvironmentStorage(wrappedValue: "default", "label", in: store)
            }
        }
        let deadline = ContinuousClock.now + .seconds(TestScale.choose(full: 10, sanitized: 2))
        let reads = Locked(0)
        let writes = Locked(0)
        let badReads = Locked<[String]>([])
        let bodies: [@Sendable () -> Void] = (0..<12).map { index in
            {
                var count = 0
                if index < 8 {
                    let reader = Reader(store: store)
                    while ContinuousClock.now < deadline {
                        for _ in 0..<1_000 {
                            let speed = reader.speed
                            let label = reader.label
                            if speed < -1 || !(label == "start" || label == "default" || label.hasPrefix("writer")) {
                                badReads.withLock { $0.append("\(speed) \(label)") }
                            }
                        }
                        count += 2_000
                    }
                    reads.withLock { $0 += count }
                } else {
                    var value = 0
                    while ContinuousClock.now < deadline {
                        value += 1
                        try? store.set(value, forKey: "speed")
                        try? store.set("writer \(index) \(value)", forKey: "label")
                        if value % 100 == 0 { try? store.removeValue(forKey: "label") }
                        try? store.reference(forKey: "speed", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
                        count += 3
                    }
                    writes.withLock { $0 += count }
                }
            }
        }
        let finished = DispatchGroup()
        for body in bodies {
            finished.enter()
            Thread.detachNewThread {
                body()
                finished.leave()
            }
        }
        finished.wait()
        #expect(badReads.withLock { $0 }.isEmpty)
        #expect(reads.withLock { $0 } > 0)
        #expect(writes.withLock { $0 } > 0)
        #expect(ProcessInfo.processInfo.environment == environmentBefore)
        #expect(ProcessInfo.processInfo.environment["SPEED"] == environmentBefore["SPEED"])
    }
}
