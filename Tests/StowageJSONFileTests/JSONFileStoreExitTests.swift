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

        var lost: [Int] = []
        // Exits from at once to 40 ms after the set: the write starts 1 ms after it and lasts several.
        for (run, microseconds) in stride(from: 0, through: 40_000, by: 1_000).enumerated() {
            let (status, _) = try WorkerProcess.jsonFile.run(["set-and-exit-after", directory.file(), "exit.\(run)", "\(run)", "\(microseconds)"])
            #expect(status == 0)
            let reread = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))
            try reread.reload()
            if try reread.value(forKey: "exit.\(run)", as: String.self) != "\(run)" { lost.append(microseconds) }
        }
        #expect(lost.isEmpty, "changes lost by exits \(lost) µs after the set")
    }
}
