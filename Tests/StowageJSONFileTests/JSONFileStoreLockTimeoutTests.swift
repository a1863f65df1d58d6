import Foundation
import StowageJSONFile
import StowageTestSupport
import Testing

/// `Options.lockTimeout`: a write that finds the file locked by another
/// process for longer gives up with `.timedOut` and changes nothing.
struct JSONFileStoreLockTimeoutTests {
    @Test func aCompareAndSwapGivesUpAfterTheTimeoutAndLeavesNothingPending() throws {
        let directory = TemporaryDirectory()
        let url = directory.url("settings.json")
        let store = JSONFileStore(url: url, options: .init(changeDetection: .none, lockTimeout: .milliseconds(150)))
        try store.set("dark", forKey: "theme")
        try store.flush()
        // Another process's lock: a descriptor of this process's own, which flock treats alike.
        let holder = open(directory.file("settings.json.lock"), O_RDWR)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)

        let started = ContinuousClock.now
        #expect {
            try store.reference(forKey: "theme", as: String.self).modify { $0 = "light" }
        } throws: { error in
            let error = error as? StorageError
            return error?.code == .timedOut && error?.message.contains("locked by another process for more than") == true
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try store.value(forKey: "theme", as: String.self) == "dark")

        flock(holder, LOCK_UN)
        close(holder)
        try store.flush()
        #expect(try String(contentsOf: url, encoding: .utf8).contains("dark"))
        try store.reference(forKey: "theme", as: String.self).modify { $0 = "light" }
        #expect(try String(contentsOf: url, encoding: .utf8).contains("light"))
    }

    @Test func withoutATimeoutAWriteWaitsForTheLock() async throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url("settings.json"), options: .init(changeDetection: .none))
        try store.set(1, forKey: "count")
        try store.flush()
        let holder = open(directory.file("settings.json.lock"), O_RDWR)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        let written = Arrivals<Bool>()
        Thread {
            written.receive((try? store.reference(forKey: "count", as: Int.self).modify { $0 = 2 }) != nil)
        }.start()
        flock(holder, LOCK_UN)
        close(holder)
        #expect(await written.wait(for: true))
        #expect(try store.value(forKey: "count", as: Int.self) == 2)
    }
}
