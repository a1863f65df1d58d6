import Foundation
import Observation
import StowageFlags
import StowageTestSupport
import Testing

/// A flag's changes reach a stream, a closure and the Observation framework,
/// whether they come from an override or a remote update.
struct FlagObservationTests {
    @Test func aFlagsStreamGivesItsValueThenEveryChange() async throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        var values = flags.changes(\.rateLimit).makeAsyncIterator()
        #expect(await values.next() == 100)
        try flags.update(with: ["rate-limit": 50])
        #expect(await values.next() == 50)
        try flags.override(\.rateLimit, with: 70)
        #expect(await values.next() == 70)
        try flags.update(with: ["rate-limit": 60])  // shadowed by the override: no change to see
        try flags.removeOverride(\.rateLimit)
        #expect(await values.next() == 60)
    }

    @Test func readingAFlagTakesPartInObservationTracking() async throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        let fired = Arrivals<Bool>()
        withObservationTracking {
            _ = flags.search.vectorIndex
        } onChange: {
            fired.receive(true)
        }
        try flags.update(with: ["search.vector-index": true])
        #expect(await fired.wait(for: true))
    }

    @Test func theContainersStreamGivesEachChangedFlagWithItsOrigin() async throws {
        let flags = try FlagPole(SharedFlags(), overrides: InMemoryStore())
        var changes = flags.changes.makeAsyncIterator()
        try flags.update(with: ["theme": "dark", "rate-limit": 100])
        try flags.override(\.theme, with: .dark)  // the same value, from another origin
        try flags.removeOverride(\.theme)
        try flags.update(with: ["theme": "dark"], mode: .patch)  // nothing changes
        try flags.update(with: [:])
        try flags.override(\.newCheckout, with: true)  // a last change, to know that nothing came between
        var seen: [String] = []
        for _ in 0..<7 {
            guard let state = await changes.next() else { break }
            seen.append("\(state.key)=\(state.value) \(state.origin)")
        }
        #expect(
            seen == [
                "rate-limit=100 remote", "theme=\"dark\" remote",
                "theme=\"dark\" override", "theme=\"dark\" remote",
                "rate-limit=100 default", "theme=\"light\" default",
                "new-checkout=true override",
            ])
    }
}
