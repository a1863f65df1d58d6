#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Stowage
import StowageLocking

/// Starts programs with `posix_spawn`, giving them standard error, the
/// pipes asked for, and nothing else of this process's descriptors; waits
/// for them with `waitpid`.
///
/// What a test starts may outlive the call: `postgres.sh start` leaves a
/// server running. A server that inherited a descriptor keeps it open for
/// its whole life. Foundation's `Process` learns that a child ended when the
/// last copy of a socket it gave the child closes, and a worker's output
/// ends when the last copy of its pipe's write end does. A private server
/// started during a run held 27 pipes and 81 sockets of the test process, so
/// a test could wait forever for a worker that had ended. So every child
/// closes every descriptor from 3 on before it runs, and no test uses `Process`.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// The read end of the child's standard output, when it was piped.
    private let output: Int32?
    /// The write end of its standard input, when it was piped.
    private let input: Int32?
    /// Its exit status once reaped; guards the reaping, which happens once.
    private let status = Locked<Int32?>(nil)

    private init(pid: pid_t, output: Int32?, input: Int32?) {
        (self.pid, self.output, self.input) = (pid, output, input)
    }

    /// Starts `executable`.
    /// - Parameters:
    ///   - environment: its whole environment; this process's when `nil`.
    ///   - outputFile: a file for its standard output, made or emptied; when `nil`, a pipe ``readOutputToEnd()`` reads.
    ///   - pipesInput: whether ``send(_:)`` writes its standard input; else it reads nothing.
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, outputFile: String? = nil, pipesInput: Bool = false
    ) throws(ChildProcessFailure) -> ChildProcess {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Close-on-exec in this process, so that no other child gets them; dup2 gives this one its copies, open.
        let outputPipe = try outputFile == nil ? makePipe() : nil
        let inputPipe = try pipesInput ? makePipe() : nil
        var spawned = false
        defer {
            if let outputPipe { close(outputPipe.write) }
            if let inputPipe { close(inputPipe.read) }
            if !spawned {
                if let outputPipe { close(outputPipe.read) }
                if let inputPipe { close(inputPipe.write) }
            }
        }
        if let inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let outputPipe {
            posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        } else if let outputFile {
            posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        #if canImport(Darwin)
        // Every descriptor no action names is closed in the child.
        posix_spawn_file_actions_adddup2(&actions, 2, 2)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        guard let closeFrom = closeFromAction else {
            throw ChildProcessFailure(
                description:
                    "glibc has no posix_spawn_file_actions_addclosefrom_np (2.34 and later have), so \(executable) can not be started without this process's descriptors"
            )
        }
        _ = closeFrom(&actions, 3)
        #endif
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let result =
            envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) } ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ChildProcessFailure(description: "could not start \(executable): \(String(cString: strerror(result)))")
        }
        spawned = true
        return ChildProcess(pid: pid, output: outputPipe?.read, input: inputPipe?.write)
    }

    /// Runs `executable` to its end.
    /// - Parameter output: a file for its standard output (made or emptied).
    /// - Returns: its exit status, or 128 plus the signal that ended it.
    static func run(_ executable: String, _ arguments: [String], output: String = "/dev/null") throws(ChildProcessFailure) -> Int32 {
        try start(executable, arguments, outputFile: output).waitUntilExit()
    }

    /// Whether it has not ended yet.
    var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits until it ends.
    /// - Returns: its exit status, or 128 plus the signal that ended it.
    @discardableResult
    func waitUntilExit() -> Int32 {
        reap(blocking: true) ?? -1
    }

    /// Everything it writes to its standard output until it closes it (the piped output only).
    func readOutputToEnd() -> String {
        guard let output else { return "" }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 { data += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The next bytes of its standard output: empty once it closed it.
    func readOutput() -> [UInt8] {
        guard let output else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno != EINTR { return [] }
        }
    }

    /// Writes `text` to its standard input (the piped input only).
    func send(_ text: String) {
        guard let input else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written > 0 { bytes = bytes.dropFirst(written) } else if errno != EINTR { return }
        }
    }

    /// Ends it with SIGTERM, unless it ended already.
    func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }

    deinit {
        if let output { close(output) }
        if let input { close(input) }
    }

    /// Reaps the child once; `nil` while it runs (when not blocking).
    private func reap(blocking: Bool) -> Int32? {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            guard result == pid else { return nil }
            status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + raw & 0x7F
            return status
        }
    }

    /// A pipe whose ends no other child gets (every child closes what it inherits from 3 on anyway).
    private static func makePipe() throws(ChildProcessFailure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ChildProcessFailure(description: "could not make a pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    #if !canImport(Darwin)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.
    private static let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif
}

struct ChildProcessFailure: Error, CustomStringConvertible {
    let description: String
}
