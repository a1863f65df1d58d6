@testable import StowageJSONFile
import Testing

struct EventReadPauseTests {
    @Test func thePauseDoublesWhileEventsKeepComingAndStartsShortAfterAQuietSpell() {
        var pause = EventReadPause()
        let start = ContinuousClock.now
        // Each read comes as the previous pause ends: a burst.
        var now = start
        var pauses: [Duration] = []
        for _ in 0..<7 {
            let next = pause.afterReading(at: now)
            pauses.append(next)
            now = now.advanced(by: next)
        }
        #expect(pauses == [5, 10, 20, 40, 80, 80, 80].map { .milliseconds($0) })

        // Quiet for longer than twice the last pause: the next event is a new burst.
        now = now.advanced(by: .milliseconds(500))
        #expect(pause.afterReading(at: now) == .milliseconds(5))
        #expect(pause.afterReading(at: now.advanced(by: .milliseconds(6))) == .milliseconds(10))
    }
}
