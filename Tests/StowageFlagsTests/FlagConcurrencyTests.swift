import Foundation
import StowageLocking
@testable import StowageTesting
import StowageFlags
import StowageTestSupport
import Testing

/// A remote update is atomic: readers never see half of a payload.
struct FlagConcurrencyTests {
    struct Generation: FlagContainer {
        @Flag("") var first = 0
        @Flag("") var second = 0
        @FlagGroup("") var group = Inner()
        @Flag("") var last = 0
    }
    struct Inner: FlagContainer {
        @Flag("") var third = 0
        @Flag("") var fourth = 0
    }

    static let payloads = 300

    /// Payload `n` sets every flag to `n`. A reader reads the flags one after
    /// another, over and over: once it has read a flag of payload `n`, it must
    /// never read an older value of any flag, in that pass or a later one.
    @Test(arguments: ["in-memory", "JSON file"])
    func readersNeverSeeHalfAPayload(remoteKind: String) async throws {
        let directory = TemporaryDirectory()
        let remote: any UnderlyingStorage =
            remoteKind == "in-memory"
            ? InMemoryStore() : JSONFileStore(url: directory.url("remote.json"), options: .init(changeDetection: .none))
        let flags = try FlagPole(Generation(), overrides: InMemoryStore(), remote: remote)
        let failures = Locked<[String]>([])
        let done = Locked(false)
        await runOnParallelThreads(4) { thread in
            if thread == 0 {
                for generation in 1...Self.payloads {
                    do {
                        try flags.update(with: [
                            "first": .signedInteger(Int64(generation)), "second": .signedInteger(Int64(generation)),
                            "group": ["third": .signedInteger(Int64(generation)), "fourth": .signedInteger(Int64(generation))],
                            "last": .signedInteger(Int64(generation)),
                        ])
                    } catch { failures.withLock { $0.append("update \(generation): \(error)") } }
                }
                done.withLock { $0 = true }
            } else if thread == 1 {
                // Listings are taken at one moment per source: every flag of one payload.
                while !done.withLock({ $0 }) {
                    let values = Set(flags.all.map(\.value))
                    if values.count != 1 { failures.withLock { $0.append("a listing mixed payloads: \(values)") } }
                }
            } else {
                var newest = 0
                while !done.withLock({ $0 }) {
                    for value in [flags.first, flags.second, flags.group.third, flags.group.fourth, flags.last] {
                        if value < newest { failures.withLock { $0.append("read \(value) after \(newest)") } }
                        newest = max(newest, value)
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.prefix(5) == [])
        #expect([flags.first, flags.second, flags.group.third, flags.group.fourth, flags.last] == Array(repeating: Self.payloads, count: 5))
    }

    /// The same, deterministically: the flags of a payload are announced one
    /// after another, and an observer of the first reads the last from inside.
    @Test func anObserverOfOneFlagOfAPayloadReadsTheOthersNew() throws {
        let flags = try FlagPole(Generation(), overrides: InMemoryStore())
        #expect(flags.first == 0 && flags.last == 0)
        let seen = Collected<String>()
        let token = flags.observe(\.first) { first in seen.append("first=\(first) saw last=\(flags.last)") }
        defer { token.cancel() }
        try flags.update(with: ["first": 1, "last": 1])
        #expect(seen.all == ["first=1 saw last=1"])
    }

    @Test func overridesAndUpdatesFromManyThreadsEndConsistent() async throws {
        let flags = try FlagPole(Generation(), overrides: InMemoryStore())
        await runOnParallelThreads(4) { thread in
            for step in 0..<200 {
                if thread % 2 == 0 {
                    _ = try? flags.update(with: ["first": .signedInteger(Int64(step))], mode: .patch)
                } else {
                    try? flags.override(\.second, with: step)
                    try? flags.removeOverride(\.second)
                }
            }
        }
        #expect(flags.second == 0 && flags.state(forKey: "second")?.origin == .default)
        #expect(flags.state(forKey: "first")?.origin == .remote)
        #expect(flags.first == 199)
    }
}
