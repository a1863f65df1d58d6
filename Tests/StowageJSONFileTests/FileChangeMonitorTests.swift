import Foundation
@testable import StowageJSONFile
import Testing
import StowageTestSupport

struct FileChangeMonitorTests {
    /// A store opened right after another was dropped usually gets the dropped
    /// one's address (30 times out of 30 when measured). The dropped one's
    /// timer unregisters it on its next tick; that must not stop the new
    /// store's change detection, as it did when registrations were keyed by
    /// address (found by reading, while writing the soak test).
    @Test func aDroppedStoresLateTickLeavesANewStoreWatched() {
        let directory = TemporaryDirectory()
        let options = JSONFileStore.Options(changeDetection: .polling(interval: .seconds(60)))
        let monitor = FileChangeMonitor.shared
        for round in 0..<10 {
            let droppedID: UInt64?
            do {
                let dropped = JSONFileStore(url: directory.url("dropped-\(round).json"), options: options)
                droppedID = monitor.registrationID(of: dropped.backing)
            }
            let kept = JSONFileStore(url: directory.url("kept-\(round).json"), options: options)
            let keptID = monitor.registrationID(of: kept.backing)
            #expect(droppedID != nil && keptID != nil)
            // What the dropped store's timer does on its next tick.
            if let droppedID { monitor.unwatch(droppedID) }
            #expect(monitor.registrationID(of: kept.backing) == keptID, "round \(round): the new store is no longer watched")
        }
    }
}
