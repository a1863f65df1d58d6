#if canImport(Glibc)
import Glibc
#endif
import Stowage
import StowageLocking

/// A worker or editor process the coordinator started: what it last said,
/// and the means to stop it when it is stuck.
final class ChildProcess: Sendable {
    enum Phase: Sendable, Equatable {
        case running
        case finishedWriting
        case exited(status: Int32)
        case signalled(signal: Int32)

        var hasEnded: Bool {
            switch self {
            case .exited, .signalled: true
            case .running, .finishedWriting: false
            }
        }
    }

    struct Status: Sendable {
        var phase = Phase.running
        var operations = 0
        /// The slowest thread's operations: when it stops growing, a thread is stuck.
        var slowestThread = 0
        var residentKiB = 0
        var lastAdvance = ContinuousClock.now
        /// Why the watchdog killed it, if it did.
        var killedBecause: String?
    }

    let name: String
    let pid: pid_t
    private let input: Int32
    private let status = Locked(Status())
    private let reader: JoinableThread

    /// Starts `executable` with `arguments`; its standard error is the coordinator's.
    init(name: String, executable: String, arguments: [String], environment: [String]) throws(SpawnError) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        // pipe2 is not visible to Swift; only this thread starts processes, so nothing can inherit the ends before they are marked.
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw SpawnError(name: name, code: errno) }
        for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies; the originals close at exec.
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw SpawnError(name: name, code: result)
        }
        self.name = name
        self.pid = pid
        input = toChild[1]
        let output = fromChild[0]
        let status = status
        reader = JoinableThread(name: "read-\(name)") {
            Self.readLines(from: output) { line in Self.handle(line, status: status) }
            close(output)
        }
    }

    struct SpawnError: Error, CustomStringConvertible {
        var name: String
        var code: Int32
        var description: String { "could not start \(name): \(String(cString: strerror(code)))" }
    }

    var snapshot: Status { status.withLock { $0 } }

    /// Sends one line to the child's standard input; a child that is gone is ignored.
    func send(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(input, $0, strlen($0)) }
    }

    /// Notes the child's end if it has ended, without waiting.
    func pollExit() {
        guard !snapshot.phase.hasEnded else { return }
        var code: Int32 = 0
        if waitpid(pid, &code, WNOHANG) == pid { recordEnd(code) }
    }

    /// Stops a stuck child, after printing where each of its threads is:
    /// with gdb when it is installed (every thread, every frame), otherwise
    /// with `SIGQUIT`, on which the Swift runtime prints a backtrace.
    func kill(because reason: String) {
        status.withLock { $0.killedBecause = $0.killedBecause ?? reason }
        ChildChannel.note("watchdog", "\(name) (pid \(pid)): \(reason); printing its threads' stacks, then SIGKILL")
        if !Self.printStacks(of: pid) {
            Glibc.kill(pid, SIGQUIT)
            // A stopped process handles the signal only once it runs again.
            Glibc.kill(pid, SIGCONT)
            let patience = ContinuousClock.now + .seconds(10)
            var code: Int32 = 0
            while ContinuousClock.now < patience {
                if waitpid(pid, &code, WNOHANG) == pid {
                    recordEnd(code)
                    return
                }
                usleep(100_000)
            }
        }
        Glibc.kill(pid, SIGKILL)
        var code: Int32 = 0
        if waitpid(pid, &code, 0) == pid { recordEnd(code) }
    }

    /// Runs gdb on `pid` to print every thread's stack to standard error.
    /// - Returns: whether gdb was there to run.
    private static func printStacks(of pid: pid_t) -> Bool {
        let gdb = "/usr/bin/gdb"
        guard access(gdb, X_OK) == 0 else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        let arguments = [gdb, "-p", "\(pid)", "-batch", "-nx", "-iex", "set complaints 0", "-ex", "set pagination off", "-ex", "thread apply all bt 40"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var debugger: pid_t = 0
        guard posix_spawn(&debugger, gdb, &actions, nil, argv, environ) == 0 else { return false }
        let patience = ContinuousClock.now + .seconds(60)
        var code: Int32 = 0
        while waitpid(debugger, &code, WNOHANG) != debugger {
            if ContinuousClock.now > patience {
                Glibc.kill(debugger, SIGKILL)
                waitpid(debugger, &code, 0)
                break
            }
            usleep(100_000)
        }
        return true
    }

    /// Waits for the child's output to end, once it has exited.
    func finish() {
        close(input)
        reader.join()
    }

    private func recordEnd(_ code: Int32) {
        // WIFEXITED and friends are macros Swift does not import.
        let signal = code & 0x7f
        status.withLock { $0.phase = signal == 0 ? .exited(status: (code >> 8) & 0xff) : .signalled(signal: signal) }
    }

    private static func readLines(from descriptor: Int32, _ handle: (Substring) -> Void) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                handle(Substring(String(decoding: pending[..<newline], as: UTF8.self)))
                pending.removeSubrange(...newline)
            }
        }
    }

    private static func handle(_ line: Substring, status: Locked<Status>) {
        let words = line.split(separator: " ")
        switch words.first {
        case ChildChannel.progress?:
            guard words.count == 4, let operations = Int(words[1]), let slowest = Int(words[2]), let resident = Int(words[3]) else { return }
            status.withLock { status in
                if slowest > status.slowestThread { status.lastAdvance = .now }
                status.operations = operations
                status.slowestThread = slowest
                status.residentKiB = resident
            }
        case ChildChannel.finishedWriting?:
            status.withLock { status in
                if status.phase == .running { status.phase = .finishedWriting }
            }
        default:
            print("[child] \(line)")
        }
    }
}
