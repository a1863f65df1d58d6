#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the package's other executables (groups 15, 16 and 18) as whole processes.
enum ChildProcesses {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The executable `name`, built beside this benchmark's own.
    static func executable(_ name: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw Failure(description: "could not find this executable: errno \(errno)") }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)]) + "/" + name
        guard access(path, X_OK) == 0 else {
            throw Failure(description: "\(path) is missing: build it with `swift build -c release --package-path Benchmarks --product \(name)`")
        }
        return path
    }

    /// Starts every command at once, with its output discarded, and waits for
    /// all of them; fails if one does not exit with status 0.
    /// - Returns: the CPU time the children used, user and system, in microseconds.
    @discardableResult
    static func runTogether(_ commands: [[String]]) throws -> Int {
        let before = childrenCPUMicroseconds()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var children: [pid_t] = []
        for command in commands {
            var pid = pid_t()
            let arguments = command.map { strdup($0) } + [nil]
            defer { arguments.forEach { free($0) } }
            let result = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
            guard result == 0 else { throw Failure(description: "could not start \(command[0]): errno \(result)") }
            children.append(pid)
        }
        for pid in children {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            guard status == 0 else { throw Failure(description: "\(commands[0].joined(separator: " ")) failed with status \(status)") }
        }
        return childrenCPUMicroseconds() - before
    }

    /// This process's environment without the plugin's `LD_PRELOAD` of its
    /// malloc interposer, for a child whose own allocations are the measurement.
    static func environmentWithoutPreloads() -> [String] {
        var variables: [String] = []
        var entry = environ
        while let variable = entry.pointee {
            let text = String(cString: variable)
            if !text.hasPrefix("LD_PRELOAD=") { variables.append(text) }
            entry += 1
        }
        return variables
    }

    /// Runs `command` and returns what it printed; fails if it does not exit with status 0.
    /// - Parameter environment: the child's environment, `nil` for this process's own.
    static func output(of command: [String], environment: [String]? = nil) throws -> String {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "could not make a pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        var pid = pid_t()
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let variables = environment.map { $0.map { strdup($0) } + [nil] }
        defer { variables?.forEach { free($0) } }
        let result =
            variables.map { posix_spawn(&pid, command[0], &actions, nil, arguments, $0) }
            ?? posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard result == 0 else { throw Failure(description: "could not start \(command[0]): errno \(result)") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count > 0 { bytes += buffer[..<count] } else if count == 0 || errno != EINTR { break }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = String(decoding: bytes, as: UTF8.self)
        guard status == 0 else { throw Failure(description: "\(command.joined(separator: " ")) failed with status \(status): \(text)") }
        return text
    }

    private static func childrenCPUMicroseconds() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }
}
