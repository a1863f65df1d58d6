import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A client of an event stream: the server-sent events it received, one
/// block (the lines up to a blank line) at a time, each awaited within a bound.
final class EventStreamClient: Sendable {
    let status: UInt
    private let blocks: AsyncStream<String>
    private let reading: Task<Void, Never>

    init(port: Int, token: String? = ServedShop.token, lastEventID: String? = nil) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/ofrep/v1/events")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        status = response.status.code
        let (blocks, continuation) = AsyncStream.makeStream(of: String.self)
        self.blocks = blocks
        reading = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        continuation.yield(String(pending[..<end.lowerBound]))
                        pending.removeSubrange(..<end.upperBound)
                    }
                }
            } catch {}
            continuation.finish()
        }
    }

    /// The next block, or `nil` when the stream ended.
    /// - Throws: `TimedOut` when none came within `limit`.
    func next(within limit: Duration = .seconds(10)) async throws -> String? {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { [blocks] in
                var iterator = blocks.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw TimedOut()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// The next block that is an event rather than a comment, within `limit` in all.
    func nextEvent(within limit: Duration = .seconds(10)) async throws -> String? {
        let deadline = ContinuousClock.now + limit
        while let block = try await next(within: deadline - .now) {
            if !block.split(separator: "\n").allSatisfy({ $0.hasPrefix(":") || $0.hasPrefix("retry:") }) { return block }
        }
        return nil
    }

    struct TimedOut: Error {}

    /// What `operation` returns, or `nil` when it has not returned within `limit`.
    static func value<Value: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value? {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    deinit { reading.cancel() }
}
