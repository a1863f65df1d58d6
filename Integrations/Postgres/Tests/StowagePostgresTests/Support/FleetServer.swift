import Foundation
import StowageJSON
import StowageJSONFile
import StowageLocking
import StowagePostgres
import Testing

/// A worker process serving one namespace, as a server of a fleet does,
/// driven line by line (see `serve` in the worker): the test reads what its
/// observer saw and asks it for its values.
final class FleetServer: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter = 0
    }

    let name: String
    /// Its connections' `application_name`; its listener's is this followed by " listener".
    let applicationName: String
    private let process: ChildProcess
    private let state = Locked(State())

    /// Starts a worker on `namespace` and waits until it has loaded.
    init(_ name: String, namespace: String, database: TestDatabase) async throws {
        self.name = name
        let unique = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        applicationName = "fleet-\(unique)"
        let process = try ChildProcess.start(
            Worker.executable.path, ["serve", namespace, unique],
            environment: ProcessInfo.processInfo.environment.merging(database.environment) { $1 }, pipesInput: true)
        self.process = process
        let state = state
        let reader = Thread {
            var pending: [UInt8] = []
            while true {
                let chunk = process.readOutput()
                pending += chunk
                var complete: [String] = []
                while let newline = pending.firstIndex(of: 0x0A) {
                    complete.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
                let waiters = state.withLock { state in
                    state.lines += complete
                    if chunk.isEmpty { state.ended = true }
                    return Array(state.waiters.values)
                }
                for waiter in waiters { waiter.yield() }
                if chunk.isEmpty { return }
            }
        }
        reader.start()
        _ = try await line(after: 0) { $0 == "ready" }
    }

    /// Starts a server for each name, and waits until each receives changes.
    static func live(_ names: [String], namespace: String, database: TestDatabase) async throws -> [FleetServer] {
        var servers: [FleetServer] = []
        for name in names { servers.append(try await FleetServer(name, namespace: namespace, database: database)) }
        for server in servers { try await server.waitForStatus(.init(connection: .connected, receivesChanges: true)) }
        return servers
    }

    /// How many lines it has printed so far.
    var lineCount: Int { state.withLock { $0.lines.count } }

    /// Every line so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// The first line from the `start`th on that `matches`, waiting for it up to `timeout`.
    @discardableResult
    func line(
        after start: Int, within timeout: Duration = .seconds(30), where matches: @escaping @Sendable (String) -> Bool
    ) async throws -> (index: Int, line: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = continuation
            return state.nextWaiter
        }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        var iterator = stream.makeAsyncIterator()
        repeat {
            let (lines, ended) = state.withLock { ($0.lines, $0.ended) }
            if start < lines.count, let index = lines[start...].firstIndex(where: matches) { return (index, lines[index]) }
            if ended { throw FleetServerFailed(name: name, reason: "ended without the line expected; its output:\n\(lines.joined(separator: "\n"))") }
        } while await iterator.next() != nil
        throw FleetServerFailed(name: name, reason: "printed no line expected within \(timeout); its last lines:\n\(lines.suffix(20).joined(separator: "\n"))")
    }

    /// Waits until its observer has seen `key` take `value` (`nil`: absent), from line `start` on.
    @discardableResult
    func waitForChange(of key: String, to value: StoredValue?, after start: Int = 0, within timeout: Duration = .seconds(30)) async throws -> Int {
        let line = "change \(try StoredValue.string(key).jsonText()) \(try value.map { try $0.jsonText() } ?? "absent")"
        return try await self.line(after: start, within: timeout) { $0 == line }.index
    }

    /// The keys its observer announced from line `start` on.
    func changedKeys(after start: Int) throws -> Set<String> {
        var keys: Set<String> = []
        for line in lines.dropFirst(start) where line.hasPrefix("change ") {
            let rest = line.dropFirst("change ".count)
            // The key is a JSON string, the value follows it after a space; a JSON string holds no unescaped quote.
            guard let end = rest.dropFirst().firstIndex(of: "\""), case .string(let key) = try StoredValue(jsonText: String(rest[...end])) else { continue }
            keys.insert(key)
        }
        return keys
    }

    /// Waits until its status line reads `status`, from line `start` on.
    @discardableResult
    func waitForStatus(_ status: PostgresStore.Status, after start: Int = 0, within timeout: Duration = .seconds(60)) async throws -> Int {
        try await line(after: start, within: timeout) { $0 == "status \(status)" }.index
    }

    /// Every key and value it holds now.
    func entries() async throws -> [String: StoredValue] {
        let start = lineCount
        send("dump")
        let line = try await line(after: start) { $0.hasPrefix("entries ") }.line
        guard case .dictionary(let entries) = try StoredValue(jsonText: String(line.dropFirst("entries ".count))) else {
            throw FleetServerFailed(name: name, reason: "printed entries that are not a JSON object: \(line)")
        }
        return entries
    }

    func send(_ command: String) {
        process.send(command + "\n")
    }

    /// Asks it to end and waits until it has.
    func stop() {
        send("quit")
        process.waitUntilExit()
    }

    deinit {
        process.terminate()
    }
}

struct FleetServerFailed: Error, CustomStringConvertible {
    let name: String
    let reason: String
    var description: String { "fleet server \(name) \(reason)" }
}
