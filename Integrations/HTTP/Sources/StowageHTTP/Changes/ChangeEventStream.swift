import Hummingbird
import NIOCore
import ServiceLifecycle

/// One client's stream of change notifications, in the server-sent events
/// format OFREP's event streams describe: an event
/// `{"type": "refetchEvaluation", …}` after every change of the flags, with
/// the revision as its `id`, and a comment now and then so that a client
/// that went away is noticed and proxies keep the connection open.
///
/// A client that reconnects with a `Last-Event-ID` older than the current
/// revision gets one event at once for what it missed. The stream ends when
/// the client goes, or when the server shuts down gracefully.
struct ChangeEventStream: Sendable {
    let broadcast: FlagChangeBroadcast
    let heartbeatInterval: Duration
    /// What the client said it saw last, from `Last-Event-ID`.
    let lastEventID: UInt64?

    private enum Item: Sendable {
        case revision(UInt64)
        case heartbeat
    }

    var body: ResponseBody {
        ResponseBody { [broadcast, heartbeatInterval, lastEventID] writer in
            let (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .unbounded)
            let revisions = broadcast.revisions()
            let current = broadcast.revision
            let forwarding = Task {
                for await revision in revisions { continuation.yield(.revision(revision)) }
            }
            let heartbeat = Task {
                while (try? await Task.sleep(for: heartbeatInterval)) != nil { continuation.yield(.heartbeat) }
            }
            defer {
                forwarding.cancel()
                heartbeat.cancel()
                continuation.finish()
            }
            var opening = "retry: 1000\n: Stowage flag changes\n\n"
            if let lastEventID, lastEventID != current { opening += Self.event(revision: current) }
            try await writer.write(ByteBuffer(string: opening))
            for await item in items.cancelOnGracefulShutdown() {
                switch item {
                case .revision(let revision): try await writer.write(ByteBuffer(string: Self.event(revision: revision)))
                case .heartbeat: try await writer.write(ByteBuffer(string: ": still here\n\n"))
                }
            }
            try await writer.finish(nil)
        }
    }

    /// A `refetchEvaluation` event; its `etag` is the revision, which a
    /// client may send back as `flagConfigEtag` (every evaluation here is
    /// current, so the server needs none).
    static func event(revision: UInt64) -> String {
        "id: \(revision)\nevent: message\ndata: {\"type\":\"refetchEvaluation\",\"etag\":\"\(revision)\"}\n\n"
    }
}
