import Foundation
import StowageTestSupport
import StowageUserDefaults
import Testing

/// What the store writes outlives the process that wrote it.
struct UserDefaultsPersistenceTests {
    /// A worker runs the conformance suite's round trips into a suite, prints
    /// every entry it left in Stowage's exact form, and exits; this process,
    /// which never saw the values, reads each back from the file and finds it
    /// bit for bit. (Run in one process, they would come from memory: on
    /// Linux, -0.0 and a date's fraction of a second survived in memory and
    /// were lost in the file.)
    @Test func everyValueTheSuiteWritesReadsBackInAnotherProcess() throws {
        let suiteName = "stowage-tests-\(UUID().uuidString)"
        defer { UserDefaultsAccess.withLock { UserDefaults(suiteName: suiteName)?.removePersistentDomain(forName: suiteName) } }
        let (status, output) = try WorkerProcess.userDefaults.run(["write", suiteName], environment: WorkerProcess.userDefaultsEnvironment)
        #expect(status == 0, "the worker failed:\n\(output)")

        let written = output.split(separator: "\n").compactMap { line -> (String, String)? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == "entry" else { return nil }
            return (String(fields[1]), String(fields[2]))
        }
        // The round trips write hundreds of keys; a handful would mean the worker's listing went wrong.
        #expect(written.count > 100, "the worker listed \(written.count) entries")

        let store = try UserDefaultsStore(suiteName: suiteName)
        let entries = try store.storedEntries(.granted)
        #expect(entries.count == written.count)
        for (key, hex) in written {
            let read = try #require(entries[key], "\(key) is missing in the second process")
            let readHex = ExactForm.encode(read).map { String(format: "%02x", $0) }.joined()
            #expect(readHex == hex, "\(key) reads back as \(read)")
        }
    }
}
