#if os(Linux)
import Foundation
import Glibc
import Testing

/// The scripts the tests start may leave a server running, which would hold
/// every descriptor it inherited for its whole life (see ``ChildProcess``).
struct ChildProcessTests {
    /// A descriptor the test process holds, not close-on-exec, is not open
    /// in the child. Before, `postgres.sh` got every descriptor of the test
    /// process, and a server it started held a worker's output pipe and
    /// exit socket: the test waiting for that worker never ended.
    @Test func aChildHoldsNoDescriptorOfTheTestProcess() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let held = fcntl(ends[1], F_DUPFD, 200)
        defer { [ends[0], ends[1], held].forEach { close($0) } }
        try #require(held >= 200)
        let listing = FileManager.default.temporaryDirectory.appending(path: "stowage-descriptors-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: listing) }

        let status = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], output: listing)

        #expect(status == 0)
        let open = try String(contentsOfFile: listing, encoding: .utf8).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        // Standard output is the listing itself: the list is the child's.
        #expect(open.contains(1), "\(open)")
        #expect(!open.contains(held) && !open.contains(ends[0]) && !open.contains(ends[1]), "the child holds \(open)")
    }
}
#endif
