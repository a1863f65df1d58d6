#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
public import Hummingbird
import NIOCore
import Stowage
public import StowageFlags
import StowageJSON

/// A `FlagPole`'s flags served over the OpenFeature Remote Evaluation
/// Protocol (OFREP), so that any OpenFeature SDK with an OFREP provider
/// (Python, TypeScript, Go, Java, …) reads them, evaluated by the same
/// engine, rules and percentage rollouts as the Swift program's own reads.
///
/// ```swift
/// let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: fleetStore)
/// let router = Router()
/// OFREPEndpoint(serving: flags, accessTokens: try AccessTokens(sha256Digests: [tokenDigest])).addRoutes(to: router)
/// let server = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8016)))
/// try await ServiceGroup(services: [fleetStore, server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
///
/// It adds, behind the access tokens:
/// - `POST /ofrep/v1/evaluate/flags/{key}`: one flag for the request's
///   context (200; 404 for a key no flag has; 400 for a flag whose
///   evaluation failed or a request it can not read).
/// - `POST /ofrep/v1/evaluate/flags`: every flag, declared or only
///   configured, with an `ETag`; `If-None-Match` with the same tag gives
///   `304 Not Modified`. The response names the event stream.
/// - `GET /ofrep/v1/events`: server-sent events, one after every change of
///   the flags (a payload, an override, a push from the PostgreSQL fleet),
///   telling clients to evaluate again.
///
/// For a service that declares no flags of its own, serve a pole of
/// `NoDeclaredFlags`, which evaluates the definitions in flagd's format alone.
public final class OFREPEndpoint: Sendable {
    /// Limits on what a request may send, and how the event stream behaves.
    public struct Options: Sendable, Hashable {
        /// The largest body read; a larger one gets 413 and is not read.
        public var maximumBodySize: Int
        /// How many levels of lists and objects a context's attribute may nest; a deeper one gets 400.
        public var maximumContextDepth: Int
        /// How often the event stream sends a comment, so that a client that went away is noticed.
        public var heartbeatInterval: Duration
        /// The seconds of inactivity after which a client should close the
        /// event stream (OFREP's `inactivityDelaySec`), as the bulk response tells it.
        public var inactivityDelaySeconds: Int

        public init(
            maximumBodySize: Int = 64 * 1024, maximumContextDepth: Int = 8, heartbeatInterval: Duration = .seconds(15),
            inactivityDelaySeconds: Int = 120
        ) {
            self.maximumBodySize = maximumBodySize
            self.maximumContextDepth = maximumContextDepth
            self.heartbeatInterval = heartbeatInterval
            self.inactivityDelaySeconds = inactivityDelaySeconds
        }
    }

    /// The path of the endpoints, as OFREP gives it.
    public static let basePath = "/ofrep/v1"

    let flags: ServedFlags
    let accessTokens: AccessTokens
    public let options: Options
    let broadcast: FlagChangeBroadcast

    /// Serves `flags` to the callers `accessTokens` accepts.
    public init<Container>(serving flags: FlagPole<Container>, accessTokens: AccessTokens, options: Options = Options()) {
        let served = ServedFlags(flags)
        self.flags = served
        self.accessTokens = accessTokens
        self.options = options
        broadcast = FlagChangeBroadcast(served)
    }

    /// Adds the endpoints to `router`, under ``basePath``, behind the access tokens.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        let group = router.group(RouterPath(Self.basePath)).add(middleware: AccessTokenMiddleware<Context>(tokens: accessTokens))
        group.post("evaluate/flags/{key}") { request, context in
            try await self.evaluateOne(request, key: context.parameters.require("key"))
        }
        group.post("evaluate/flags") { request, _ in
            try await self.evaluateAll(request)
        }
        group.get("events") { request, _ in
            self.events(request)
        }
        // Any other method on these paths gets 405 and the one allowed, as HTTP asks, rather than 404.
        for (path, allowed) in [("evaluate/flags/{key}", HTTPRequest.Method.post), ("evaluate/flags", .post), ("events", .get)] {
            for method in Self.otherMethods where method != allowed {
                group.on(RouterPath(path), method: method) { _, _ in
                    Response(status: .methodNotAllowed, headers: [.allow: allowed.rawValue, .contentLength: "0"])
                }
            }
        }
    }

    private static let otherMethods: [HTTPRequest.Method] = [
        .get, .head, .post, .put, .delete, .patch, .options, .trace, .connect, HTTPRequest.Method("QUERY")!,
    ]

    private func evaluateOne(_ request: Request, key: String) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        let context: EvaluationContext
        do throws(OFREPRequestError) { context = try readContext(body) } catch {
            return Self.json(OFREPResponseBody.failure(key: key, code: error.code, details: error.details), status: .badRequest)
        }
        let evaluation = flags.evaluate(key, context)
        let status: HTTPResponse.Status =
            switch evaluation.errorCode {
            case nil: .ok
            case .flagNotFound?: .notFound
            case _?: .badRequest
            }
        return Self.json(OFREPResponseBody.evaluation(evaluation), status: status)
    }

    private func evaluateAll(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        let context: EvaluationContext
        do throws(OFREPRequestError) {
            try Self.checkChangeMetadata(of: request)
            context = try readContext(body)
        } catch {
            return Self.json(OFREPResponseBody.failure(key: nil, code: error.code, details: error.details), status: .badRequest)
        }
        var members: [String: StoredValue] = [
            "flags": .array(flags.keys().map { OFREPResponseBody.evaluation(flags.evaluate($0, context)) }),
            "eventStreams": [
                [
                    "type": "sse", "endpoint": ["requestUri": .string(Self.basePath + "/events")],
                    "inactivityDelaySec": .signedInteger(Int64(options.inactivityDelaySeconds)),
                ]
            ],
        ]
        let metadata = flags.metadata()
        if !metadata.isEmpty { members["metadata"] = .dictionary(metadata) }
        let text = Self.jsonText(.dictionary(members))
        let tag = EntityTag(of: text.utf8)
        if let ifNoneMatch = request.headers[.ifNoneMatch], tag.isNamed(byIfNoneMatch: ifNoneMatch) {
            return Response(status: .notModified, headers: [.eTag: tag.headerValue])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .eTag: tag.headerValue, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private func events(_ request: Request) -> Response {
        let lastEventID = request.headers[.lastEventID].flatMap { UInt64($0.trimmingSpaces) }
        let stream = ChangeEventStream(broadcast: broadcast, heartbeatInterval: options.heartbeatInterval, lastEventID: lastEventID)
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .xAccelBuffering: "no"],
            body: stream.body)
    }

    /// Checks the metadata an event stream's event gave the refetch
    /// (`flagConfigEtag`, `flagConfigLastModified`), which OFREP types.
    /// Every evaluation here reads the current flags, so the values are not
    /// otherwise needed; one of the wrong type is still an error of the caller's.
    private static func checkChangeMetadata(of request: Request) throws(OFREPRequestError) {
        guard let lastModified = request.uri.queryParameters["flagConfigLastModified"].map(String.init) else { return }
        let isSeconds = !lastModified.isEmpty && lastModified.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard isSeconds || (try? Date(lastModified, strategy: .iso8601)) != nil else {
            throw .parse("flagConfigLastModified is neither seconds since 1970 nor an ISO 8601 date and time.")
        }
    }

    /// The evaluation context of a request's body, read within the body
    /// limit by the caller (Hummingbird answers a larger body with 413).
    private func readContext(_ body: ByteBuffer) throws(OFREPRequestError) -> EvaluationContext {
        try EvaluationContext(ofrepRequest: body, maximumDepth: options.maximumContextDepth)
    }

    static func json(_ value: StoredValue, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: jsonText(value))))
    }

    /// Every value here is JSON's own (text, numbers, booleans, lists,
    /// objects) and shallow, so serializing can not fail; were it to, the
    /// body says so rather than trapping.
    static func jsonText(_ value: StoredValue) -> String {
        (try? value.jsonText()) ?? #"{"errorDetails":"The response could not be written as JSON."}"#
    }
}

extension HTTPField.Name {
    /// Where a reconnecting event-stream client says what it saw last.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    /// Asks nginx not to buffer the event stream.
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
