#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Copies of this executable started together, as servers of a fleet would
/// be, for the modify, propagation and convergence groups.
///
/// Every child reads the same gate pipe as its standard input, says "ready"
/// on its standard output once connected, and then blocks reading the gate.
/// Closing the gate's one write end wakes them all at once: the start is
/// one moment for every child, taken after every connection is made. A
/// child that runs until told to stop (the convergence group's) takes the
/// gate's closing as that word instead.
///
/// `posix_spawn` and `waitpid` from one thread, not Foundation's `Process`,
/// whose wait for exit was seen never to return when children were started
/// from several threads at once.
struct ChildProcesses {
    private struct Child {
        let pid: pid_t
        /// The read end of the pipe the child writes its standard output to.
        let output: Int32
    }

    private var children: [Child] = []
    private var gateWriter: Int32 = -1

    /// Starts one child per entry of `argumentLists`, with this process's environment and `extraEnvironment`.
    init(argumentLists: [[String]], extraEnvironment: [String: String] = [:]) throws(BenchmarkFailure) {
        let gate = try Self.makePipe()
        gateWriter = gate.write
        defer { close(gate.read) }
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }.map { "\($0.key)=\($0.value)" }
        for arguments in argumentLists {
            let output: (read: Int32, write: Int32)
            do { output = try Self.makePipe() } catch {
                endAfterFailure()
                throw error
            }
            defer { close(output.write) }
            #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
            #else
            var actions = posix_spawn_file_actions_t()
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // The pipes are close-on-exec; dup2 gives the child its copies as fds 0 and 1, open.
            posix_spawn_file_actions_adddup2(&actions, gate.read, 0)
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup($0) } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            guard status == 0 else {
                close(output.read)
                endAfterFailure()
                throw BenchmarkFailure("could not start \(executable): \(String(cString: strerror(status)))")
            }
            children.append(Child(pid: pid, output: output.read))
        }
    }

    /// Waits until every child has said "ready".
    func waitUntilReady() throws(BenchmarkFailure) {
        for child in children {
            let line = Self.readLine(child.output)
            guard line == "ready" else {
                throw BenchmarkFailure("child \(child.pid) ended before it was ready (said \(line.map { "\"\($0)\"" } ?? "nothing")); its error is above")
            }
        }
    }

    /// The next line child number `index` (in the order of `argumentLists`)
    /// wrote, without its newline; `nil` once it has closed its output.
    /// Blocks until the line is complete: the child bounds its own waits.
    func readLine(fromChild index: Int) -> String? {
        Self.readLine(children[index].output)
    }

    /// Opens the gate: every child starts now.
    mutating func start() {
        close(gateWriter)
        gateWriter = -1
    }

    /// Everything each child wrote after "ready", once all have exited; opens
    /// the gate first if need be, so a caller that failed still reaps them.
    /// - Throws: when a child failed (its status), after waiting for all of them.
    mutating func finish() throws(BenchmarkFailure) -> [String] {
        if gateWriter >= 0 { start() }
        var outputs: [String] = []
        var failures: [String] = []
        for child in children {
            outputs.append(Self.readToEnd(child.output))
            close(child.output)
            let status = Self.wait(for: child.pid)
            if status != 0 { failures.append("child \(child.pid) exited with status \(status)") }
        }
        children = []
        guard failures.isEmpty else { throw BenchmarkFailure(failures.joined(separator: "; ") + "; its error is above") }
        return outputs
    }

    /// After a failure to start them all: lets the started ones go and reaps them.
    private mutating func endAfterFailure() {
        start()
        for child in children {
            close(child.output)
            _ = Self.wait(for: child.pid)
        }
        children = []
    }

    // MARK: File descriptors

    private static func makePipe() throws(BenchmarkFailure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchmarkFailure("pipe() failed: \(String(cString: strerror(errno)))") }
        // Close-on-exec, so that no child holds another child's pipe, nor the gate's write end.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// One line, without its newline; `nil` at the end of the stream.
    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    private static func readToEnd(_ fd: Int32) -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The child's exit status, or 128 + the signal that ended it.
    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
