#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// How a child started by ``ChildProcesses`` talks with its parent: lines
/// on its standard output, and the end of its standard input (the gate,
/// which the parent closes once) as the one signal the other way.
enum ParentChannel {
    /// A line to the parent, unbuffered, so the parent can act on it at once.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Says "ready" and blocks until the parent closes the gate.
    static func waitAtGate() throws(BenchmarkFailure) {
        say("ready")
        try waitForEndOfInput()
    }

    /// Says "ready" and waits for the gate on a thread of its own, so the
    /// cooperative pool (two threads on two cores) keeps both of its threads.
    static func waitAtGateOffThePool() async throws {
        try await onThread { try waitAtGate() }
    }

    /// Calls `body` on a thread of its own once the parent closes the gate:
    /// for children that run until told to stop.
    static func onEndOfInput(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            try? waitForEndOfInput()
            body()
        }
        thread.start()
    }

    /// Blocks until standard input ends.
    private static func waitForEndOfInput() throws(BenchmarkFailure) {
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 0 else { throw BenchmarkFailure("the gate (standard input) gave data or failed; it should only close") }
            return
        }
    }
}
