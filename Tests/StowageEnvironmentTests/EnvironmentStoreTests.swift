#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import StowageLocking
import Testing
import StowageTestSupport

/// Reading the process environment, writes, reloads and child processes.
struct EnvironmentStoreTests {
    let files = TemporaryDirectory()

    @Test func aStoreReadsTheProcessEnvironment() throws {
        let store = EnvironmentStore()
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(try store.value(forKey: "PATH", as: String.self) == path)
        #expect(store.environmentForChildProcess() == ProcessInfo.processInfo.environment)
    }

    /// `setenv` is unsafe while other threads read the environment, and the
    /// tests run in parallel, so a second process does the part that calls it.
    @Test func reloadRereadsTheProcessEnvironmentAndMirroringIsOptIn() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_WORKER_VALUE"] = "0x2A"
        let (status, output) = try WorkerProcess.environment.run([], environment: environment)
        #expect(status == 0)
        #expect(
            output.split(separator: "\n") == [
                "read: 42",
                "before reload: 42",
                "after reload: 7",
                "overlay in the environment: nil",
                "mirrored: 9",
                "mirrored after reload: 9",
                "mirror removed: nil",
            ])
    }

    @Test func writesGoToTheOverlayAndNeverToTheProcessEnvironment() throws {
        let store = EnvironmentStore()
        let before = ProcessInfo.processInfo.environment
        let reference = store.reference(forKey: "stowageTestOverlay", as: Int.self)
        try store.set(5, forKey: "stowageTestOverlay")
        #expect(try reference.read() == 5)
        #expect(store.environmentForChildProcess()["STOWAGE_TEST_OVERLAY"] == "5")
        #expect(ProcessInfo.processInfo.environment == before)
        try store.removeValue(forKey: "stowageTestOverlay")
        #expect(try reference.read() == nil)
        #expect(store.environmentForChildProcess()["STOWAGE_TEST_OVERLAY"] == nil)
    }

    @Test func removingAVariableHidesItFromReadsAndChildren() throws {
        let store = EnvironmentStore(variables: ["KEEP": "1", "DROP": "2"])
        try store.removeValue(forKey: "drop")
        #expect(try store.value(forKey: "drop", as: Int.self) == nil)
        #expect(store.environmentForChildProcess() == ["KEEP": "1"])
    }

    @Test func childProcessesGetValuesAsText() throws {
        let store = EnvironmentStore(variables: ["BASE": "b"])
        try store.set(true, forKey: "flag")
        try store.set(2.5, forKey: "ratio")
        try store.set(["a", "b"], forKey: "list")
        try store.set(Data("hi".utf8), forKey: "blob")
        #expect(store.environmentForChildProcess() == ["BASE": "b", "FLAG": "true", "RATIO": "2.5", "LIST": #"["a","b"]"#, "BLOB": "aGk="])
        // What a child reads back is what was written.
        let child = EnvironmentStore(variables: store.environmentForChildProcess())
        #expect(try child.value(forKey: "list", as: [String].self) == ["a", "b"])
        #expect(try child.value(forKey: "blob", as: Data.self) == Data("hi".utf8))
        #expect(try child.value(forKey: "ratio", as: Double.self) == 2.5)
    }

    @Test func reloadAnnouncesOnlyTheKeysThatChanged() async throws {
        let file = files.write("A=1\nB=1\n")
        let store = try EnvironmentStore(dotEnv: .init(url: file), variables: [:])
        let aCalls = Counter()
        let bValues = Locked<[Int?]>([])
        let aToken = store.reference(forKey: "a", as: Int.self).observe { _ in aCalls.increment() }
        let bToken = store.reference(forKey: "b", as: Int.self).observe { value in bValues.withLock { $0.append(value) } }
        defer {
            aToken.cancel()
            bToken.cancel()
        }
        files.write("A=1\nB=2\n")
        try store.reload()
        files.write("A=1\n")
        try store.reload()
        #expect(bValues.withLock { $0 } == [2, nil])
        #expect(aCalls.value == 0)
    }

    @Test func aChangedVariableReplacesTheStoresOwnWriteButAnUnchangedOneDoesNot() throws {
        let file = files.write("MODE=file\nOTHER=x\n")
        let store = try EnvironmentStore(dotEnv: .init(url: file), variables: [:])
        try store.set("mine", forKey: "mode")
        try store.set("mine too", forKey: "other")
        files.write("MODE=edited\nOTHER=x\n")
        try store.reload()
        #expect(try store.value(forKey: "mode", as: String.self) == "edited")
        #expect(try store.value(forKey: "other", as: String.self) == "mine too")
    }

    @Test func aFailedReloadKeepsTheValuesAndReportsWhy() throws {
        let file = files.write("A=1\n")
        let store = try EnvironmentStore(dotEnv: .init(url: file), variables: [:])
        files.write("A=\"unclosed\n")
        #expect(throws: StorageError.self) { try store.reload() }
        #expect(store.lastError?.code == .invalidDotEnv)
        #expect(try store.value(forKey: "a", as: Int.self) == 1)
    }

    @Test func modifyIsAtomicAcrossThreads() async throws {
        let store = EnvironmentStore(variables: ["COUNT": "0"])
        let reference = store.reference(forKey: "count", as: Int.self)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { try? reference.modify { $0 = ($0 ?? 0) + 1 } }
                }
            }
        }
        #expect(try reference.read() == 2_000)
    }

    @Test func dynamicMemberLookupReadsTypedValues() throws {
        let store = EnvironmentStore(variables: ["RETRIES": "3"])
        let retries: Int? = store.values.retries
        #expect(retries == 3)
    }

    @Test func theDescriptionCountsVariablesInGoodEnglish() {
        #expect(EnvironmentStore(variables: ["A": "1"]).description == "EnvironmentStore(1 variable, 0 written by this store)")
        #expect(EnvironmentStore(variables: ["A": "1", "B": "2"]).description == "EnvironmentStore(2 variables, 0 written by this store)")
    }
}

/// A thread-safe count of calls.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
