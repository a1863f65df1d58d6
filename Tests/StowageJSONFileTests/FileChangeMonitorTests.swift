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

    /// A process that exits with an inotify watch in place waits for the
    /// kernel to tear it down, so the folder is watched from the first tick
    /// on, not from the opening: a short-lived tool never pays for it.
    /// Polling alone never watches it.
    @Test func theFolderIsWatchedFromTheFirstTickOnAndOnlyWithAutomaticDetection() throws {
        let directory = TemporaryDirectory()
        let monitor = FileChangeMonitor.shared
        let automatic = JSONFileStore(url: directory.url("automatic.json"), options: .init(changeDetection: .automatic(pollInterval: .seconds(600))))
        let polling = JSONFileStore(url: directory.url("polling.json"), options: .init(changeDetection: .polling(interval: .seconds(600))))
        #expect(!monitor.watchesDirectory(of: automatic.backing), "the folder was watched before the first tick")
        let automaticID = try #require(monitor.registrationID(of: automatic.backing))
        let pollingID = try #require(monitor.registrationID(of: polling.backing))
        // What each timer does on its first tick.
        monitor.tick(automaticID, automatic.backing, watchingDirectory: true)
        monitor.tick(pollingID, polling.backing, watchingDirectory: false)
        #if os(Linux)
        #expect(monitor.watchesDirectory(of: automatic.backing))
        #endif
        #expect(!monitor.watchesDirectory(of: polling.backing), "polling alone watched the folder")
    }

    /// A file that keeps changing is checked once at first, then at most once
    /// an interval, and always once more after the last change.
    @Test func aFileThatKeepsChangingIsCheckedOnceAnIntervalAndOnceAfterItsLastChange() {
        var throttle = RecheckThrottle()
        let start = ContinuousClock.now
        let interval = Duration.milliseconds(5)
        #expect(throttle.decide(at: start, minimumInterval: interval) == .checkNow)
        #expect(throttle.decide(at: start + .milliseconds(1), minimumInterval: interval) == .checkAfter(.milliseconds(4)))
        #expect(throttle.decide(at: start + .milliseconds(2), minimumInterval: interval) == .alreadyScheduled)
        #expect(throttle.decide(at: start + .milliseconds(4), minimumInterval: interval) == .alreadyScheduled)
        throttle.scheduledCheckRuns(at: start + .milliseconds(5))
        #expect(throttle.decide(at: start + .milliseconds(7), minimumInterval: interval) == .checkAfter(.milliseconds(3)))
        throttle.scheduledCheckRuns(at: start + .milliseconds(10))
        // After a quiet spell, the next change is checked at once again.
        #expect(throttle.decide(at: start + .milliseconds(40), minimumInterval: interval) == .checkNow)
    }

    #if os(Linux)
    /// A burst of edits faster than the throttle's interval: the value the
    /// file ends with is still seen, through inotify alone (the poll interval
    /// is ten minutes), by the check that follows the last edit.
    @Test func theLastOfABurstOfEditsIsSeen() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url("burst.json")
        try Data(#"{"edit": 0}"#.utf8).write(to: url)
        let store = JSONFileStore(url: url, options: .init(changeDetection: .automatic(pollInterval: .seconds(600))))
        let monitor = FileChangeMonitor.shared
        let identifier = try #require(monitor.registrationID(of: store.backing))
        // What the timer's first tick does: watch the folder.
        monitor.tick(identifier, store.backing, watchingDirectory: true)
        let edits = store.reference(forKey: "edit", as: Int.self)
        let arrivals = Arrivals<Int?>()
        let token = edits.observe { arrivals.receive($0) }
        defer { token.cancel() }
        for number in 1...300 {
            // Renamed over the file, as editors save: each edit is whole.
            try Data("{\"edit\": \(number)}".utf8).write(to: url, options: .atomic)
        }
        #expect(await arrivals.wait(for: 300), "the last edit was not seen (last seen \(String(describing: arrivals.latest)))")
    }
    #endif

    /// Events about the lock file and writers' temporary files in the same
    /// folder wake no check of the settings file; events naming it, about
    /// the folder itself, or a lost event (the queue overflowed) do.
    @Test func onlyEventsNamingAWatchedFileOrItsFolderConcernIt() {
        func event(watch: Int32, name: String) -> [UInt8] {
            // struct inotify_event: wd, mask, cookie, len, then the name padded with NULs to len.
            let padded = name.isEmpty ? [] : Array(name.utf8) + Array(repeating: 0, count: 16 - name.utf8.count % 16)
            var bytes: [UInt8] = []
            for field in [UInt32(bitPattern: watch), 0x100, 0, UInt32(padded.count)] {
                withUnsafeBytes(of: field.littleEndian) { bytes += $0 }
            }
            return bytes + padded
        }
        let settings = Array("settings.json".utf8)
        var busyFolder = DirectoryEvents()
        (event(watch: 3, name: ".settings.json.lock") + event(watch: 3, name: ".settings.json.tmp-1a2b3c")
            + event(watch: 4, name: "settings.json")).withUnsafeBytes { busyFolder.add($0) }
        #expect(!busyFolder.concern(settings, watchedAs: 3), "another file's events woke a check")
        #expect(busyFolder.concern(settings, watchedAs: 4))
        #expect(!busyFolder.concern(settings, watchedAs: nil))

        var replaced = DirectoryEvents()
        (event(watch: 3, name: ".settings.json.tmp-1a2b3c") + event(watch: 3, name: "settings.json")).withUnsafeBytes { replaced.add($0) }
        #expect(replaced.concern(settings, watchedAs: 3))

        var folderMoved = DirectoryEvents()
        event(watch: 3, name: "").withUnsafeBytes { folderMoved.add($0) }
        #expect(folderMoved.concern(settings, watchedAs: 3))

        var overflowed = DirectoryEvents()
        event(watch: -1, name: "").withUnsafeBytes { overflowed.add($0) }
        #expect(overflowed.concern(settings, watchedAs: 7))
    }
}
