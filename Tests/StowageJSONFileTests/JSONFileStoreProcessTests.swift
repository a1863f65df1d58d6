import Foundation
@testable import StowageJSONFile
import Testing
import StowageTestSupport

/// Several processes on one file, and processes killed mid-write.
struct JSONFileStoreProcessTests {
    let directory = TemporaryDirectory()

    @Test func eightProcessesWritingDistinctKeysLoseNone() throws {
        let statuses = try WorkerProcess.jsonFile.runConcurrently((0..<8).map { ["write-keys", directory.file(), "process\($0)", "500"] })
        #expect(statuses == Array(repeating: 0, count: 8))
        let values = try JSONFileStore(url: directory.url()).snapshot().entries
        #expect(values.count == 4_000)
        for process in 0..<8 {
            for index in [0, 250, 499] { #expect(values["process\(process).\(index)"] == .signedInteger(Int64(index))) }
        }
    }

    @Test func modifyIsAtomicAcrossProcesses() throws {
        let statuses = try WorkerProcess.jsonFile.runConcurrently(Array(repeating: ["increment", directory.file(), "counter", "1000"], count: 2))
        #expect(statuses == [0, 0])
        #expect(try JSONFileStore(url: directory.url()).value(forKey: "counter", as: Int.self) == 2_000)
    }

    @Test func transactionsAreAtomicAcrossProcesses() throws {
        let statuses = try WorkerProcess.jsonFile.runConcurrently(Array(repeating: ["transfer", directory.file(), "300"], count: 2))
        #expect(statuses == [0, 0])
        let store = JSONFileStore(url: directory.url())
        #expect(try store.value(forKey: "from", as: Int.self) == -600)
        #expect(try store.value(forKey: "to", as: Int.self) == 600)
    }

    /// A writer killed at random moments, 200 times: the file always parses,
    /// holds one whole generation that was flushed, and no temporary file
    /// survives the next opening.
    @Test func aWriterKilledAtRandomMomentsNeverLeavesABrokenFile() throws {
        var generator = SystemRandomNumberGenerator()
        var killedMidRun = 0
        for round in 0..<200 {
            let (process, pipe) = try WorkerProcess.jsonFile.start(["flush-forever", directory.file()])
            // Wait for the first flushed generation, so the kill lands while the writer is running.
            let first = pipe.fileHandleForReading.availableData
            usleep(UInt32.random(in: 0...20_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = String(decoding: first + pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").compactMap { Int($0) }
            if !printed.isEmpty { killedMidRun += 1 }

            let reopened = JSONFileStore(path: directory.file(), options: .init(changeDetection: .none), fileSystem: POSIXFileSystem())
            #expect(reopened.lastError == nil, "round \(round): \(String(describing: reopened.lastError))")
            #expect(!directory.contents().contains { $0.contains(".tmp-") }, "round \(round): \(directory.contents())")
            guard let generation = try reopened.value(forKey: "generation", as: Int.self) else {
                #expect(printed.isEmpty, "round \(round): a flushed generation is missing")
                continue
            }
            #expect(try reopened.value(forKey: "copy", as: Int.self) == generation, "round \(round)")
            let payload = try reopened.value(forKey: "payload", as: [Int].self) ?? []
            #expect(payload == Array(repeating: generation, count: 200 + generation % 300), "round \(round)")
            if let last = printed.last {
                // The last generation reported flushed is on disk, or the one after it, whose rename had landed.
                #expect(generation == last || generation == last + 1, "round \(round): file has \(generation), last flushed \(last)")
            }
        }
        #expect(killedMidRun == 200, "every kill must land while the writer is running")
    }
}
