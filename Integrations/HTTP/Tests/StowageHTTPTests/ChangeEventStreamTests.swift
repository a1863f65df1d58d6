import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Stowage
import StowageFlags
import StowageHTTP
import StowageInMemory
import Testing

/// The event stream over a real connection: a change anywhere in the
/// pole's stores reaches an open stream, a reconnecting client hears of
/// what it missed, and a graceful shutdown ends every stream.
struct ChangeEventStreamTests {
    let flags: FlagPole<ShopFlags>

    init() throws { flags = try ServedShop.pole() }

    /// The server on a free port, in a service group of its own, with heartbeats every 200 ms;
    /// `ports` gives the port once it listens.
    private func server() -> (group: ServiceGroup, ports: AsyncStream<Int>) {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let router = Router()
        OFREPEndpoint(serving: flags, accessTokens: AccessTokens([ServedShop.token]), options: .init(heartbeatInterval: .milliseconds(200)))
            .addRoutes(to: router)
        let server = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            })
        return (ServiceGroup(services: [server], logger: Logger(label: "test")), ports)
    }

    /// Runs `body` against the server, then shuts it down gracefully.
    private func withServer(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        let (group, ports) = server()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do { try await body(port) } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func anOverrideReachesAnOpenStreamAsARefetchEvent() async throws {
        try await withServer { port in
            let stream = try await EventStreamClient(port: port)
            #expect(stream.status == 200)
            // The opening block says the stream is open, so the change below comes after it.
            let opening = try #require(try await stream.next())
            #expect(opening.contains("retry: 1000"))
            try flags.override(key: "plain", with: 5)
            let event = try #require(try await stream.nextEvent())
            let lines = event.split(separator: "\n")
            #expect(lines.contains("event: message"))
            #expect(lines.contains { $0.hasPrefix("id: ") })
            #expect(lines.contains { $0.hasPrefix("data: ") && $0.contains(#""type":"refetchEvaluation""#) })
        }
    }

    @Test func aPayloadOfDefinitionsReachesEveryOpenStream() async throws {
        try await withServer { port in
            let first = try await EventStreamClient(port: port)
            let second = try await EventStreamClient(port: port)
            _ = try await first.next()
            _ = try await second.next()
            try flags.update(with: Data(#"{"flags": {"theme": {"state": "DISABLED", "variants": {"a": 1}, "defaultVariant": "a"}}}"#.utf8), mode: .patch)
            #expect(try await first.nextEvent()?.contains("refetchEvaluation") == true)
            #expect(try await second.nextEvent()?.contains("refetchEvaluation") == true)
        }
    }

    @Test func aClientThatMissedAChangeHearsOfItWhenItReconnects() async throws {
        try await withServer { port in
            try flags.override(key: "plain", with: 6)
            let stream = try await EventStreamClient(port: port, lastEventID: "0")
            let event = try #require(try await stream.nextEvent())
            #expect(event.contains("refetchEvaluation"))
            // One that saw the latest revision hears nothing until the next change.
            let id = try #require(event.split(separator: "\n").first { $0.hasPrefix("id: ") }).dropFirst(4)
            let upToDate = try await EventStreamClient(port: port, lastEventID: String(id))
            #expect(try await upToDate.next()?.contains("retry:") == true)
            #expect(try await upToDate.next()?.hasPrefix(":") == true)
        }
    }

    @Test func aStreamWithoutATokenIsRefused() async throws {
        try await withServer { port in
            let stream = try await EventStreamClient(port: port, token: nil)
            #expect(stream.status == 401)
            let wrong = try await EventStreamClient(port: port, token: "not-the-token")
            #expect(wrong.status == 401)
        }
    }

    @Test func aGracefulShutdownEndsOpenStreamsAndTheServerStops() async throws {
        let (group, ports) = server()
        let (stops, stopContinuation) = AsyncStream.makeStream(of: Bool.self)
        let running = Task {
            defer { stopContinuation.yield(true) }
            try await group.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let stream = try await EventStreamClient(port: port)
        _ = try await stream.next()
        await group.triggerGracefulShutdown()
        // Heartbeats come every 200 ms while the stream is open: only its end gives nil.
        #expect(try await stream.nextEvent(within: .seconds(10)) == nil)
        let stopped = try await EventStreamClient.value(within: .seconds(10)) {
            var iterator = stops.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(stopped == true)
    }
}
