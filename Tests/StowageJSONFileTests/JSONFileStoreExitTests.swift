import Foundation
import StowageJSONFile
import StowageTestSupport
import Testing

/// A normal exit writes pending changes, including those a background write
/// had already taken when the exit came.
struct JSONFileStoreExitTests {
    /// The exit handler flushed only stores that still held pending changes,
    /// but a write in flight has taken its batch out of them: the exit neither
    /// wrote the batch nor waited for it, and the change was lost.
    @Test func anExitAtAnyMomentAroundTheBackgroundWriteKeepsTheChange() throws {
        let directory = TemporaryDirectory()
        // Large enough that a write takes milliseconds, so exits land before, during and after one.
        let filler = (0..<20_000).map { "\"filler.\($0)\": \"a value that makes the file large enough to take a while\"" }
        writeFile(directory.file(), "{" + filler.joined(separator: ",\n") + "}")

        // A write of this file takes a few milliseconds in a plain build and many times that
        // under a sanitizer: the exits are spread over the write this build makes.
        let (timingStatus, timing) = try WorkerProcess.jsonFile.run(["time-write", directory.file()])
        #expect(timingStatus == 0)
        let write = try #require(Int(timing.trimmingCharacters(in: .whitespacesAndNewlines)), "the worker printed \(timing)")
        // The background write starts 1 ms after the set: exits before it, at every eighth of it, and after it.
        let exitTimes = [0, 500] + (0...8).map { 1_000 + write * $0 / 8 } + [1_000 + write * 2]

        var lost: [Int] = []
        for (run, microseconds) in exitTimes.enumerated() {
            let (status, _) = try WorkerProcess.jsonFile.run(["set-and-exit-after", directory.file(), "exit.\(run)", "\(run)", "\(microseconds)"])
            #expect(status == 0)
            let reread = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
            try reread.reload()
            if try reread.value(forKey: "exit.\(run)", as: String.self) != "\(run)" { lost.append(microseconds) }
        }
        #expect(lost.isEmpty, "changes lost by exits \(lost) µs after the set")
    }

    /// The exit waits for a write that can not finish (another process holds
    /// the lock for good, as a hung one would) for a bounded time, then ends
    /// the process and reports the changes it could not write.
    @Test func anExitWaitsForAWriteThatCanNotFinishForABoundedTime() throws {
        let directory = TemporaryDirectory()
        let lock = open(directory.file("settings.json.lock"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)

        let started = try WorkerProcess.jsonFile.start(["set-and-exit-after", directory.file(), "key", "value", "0"])
        // Should the exit hang after all, the test ends it rather than hang too.
        let watchdog = DispatchWorkItem { if started.process.isRunning { started.process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let (status, output) = WorkerProcess.finish(started)
        watchdog.cancel()
        #expect(status == 0, "the worker did not exit by itself: \(output)")
        #expect(output.contains("could not be written within 5 s"), "\(output)")
        #expect(fileBytes(directory.file()) == nil)
    }
}
