#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
public import Hummingbird
import NIOCore
public import Stowage
import StowageHistory
public import StowageFlags

/// A web page where people see and change a fleet's flags, see a store's
/// settings (secrets redacted), and read who changed what: served by any
/// server of the fleet, beside the OFREP endpoint, from the same `Router`.
///
/// ```swift
/// var users = AdminUsers()
/// users.addUser("alice", passwordHash: aliceHash, role: .editor)
/// let admin = try AdminPage(flags: flags, settings: settingsStore, users: users, sessionKey: sessionKey)
/// admin.addRoutes(to: router)
/// ```
///
/// - **Flags**: every flag with its description, type, value, origin and
///   whether a rule targets it, searched and filtered in the page. An editor
///   sets a value for the fleet (the pole's remote store), checked against
///   the flag's type before anything is written; edits a flag's targeting
///   rule, checked by the pole's own parser of flagd definitions; and sets
///   or resets an override of the server that serves the page.
/// - **History**: each flag's and setting's changes with diffs, who made
///   them and refused attempts, from stores that keep one (`ChangeHistory`,
///   the PostgreSQL store). Edits made on the page are recorded under the
///   signed-in user's name (`ChangeAuthor`).
/// - **Live**: a change made anywhere (another browser, another server,
///   `psql`, the `stowage` tool) reaches open pages through an event stream,
///   without a reload.
/// - **Access**: users sign in with a password (bcrypt) or a token; viewers
///   read, editors change. Sessions are signed cookies (`HttpOnly`,
///   `SameSite=Strict`, `Secure` unless ``Options/secureCookies`` is off)
///   that every server given the same session key accepts; every change
///   needs the session's CSRF token, and a refused change is recorded in the
///   history with who asked.
/// - **The `stowage` tool**: `GET api/history` and `POST api/flags/{key}`
///   answer JSON to a user's token (`Authorization: Bearer`), so that
///   `stowage flags history` and `stowage flags set --server` reach a fleet
///   with neither a browser nor database credentials.
public final class AdminPage: Sendable {
    /// Where the page is served and how it behaves.
    public struct Options: Sendable, Hashable {
        /// The path the page is served under.
        public var basePath: String
        /// The page's title.
        public var title: String
        /// How long a session lasts after signing in.
        public var sessionLifetime: Duration
        /// Whether the session cookie is `Secure`, sent over HTTPS only. Turn
        /// it off only for a page served over plain HTTP on a trusted network.
        public var secureCookies: Bool
        /// The largest request body read; a larger one gets 413 and is not read.
        public var maximumBodySize: Int
        /// How many entries of a key's history a page shows.
        public var historyLimit: Int
        /// How often the event stream sends a comment, so that a browser that went away is noticed.
        public var heartbeatInterval: Duration

        public init(
            basePath: String = "/admin", title: String = "Stowage", sessionLifetime: Duration = .seconds(8 * 3_600), secureCookies: Bool = true,
            maximumBodySize: Int = 64 * 1024, historyLimit: Int = 100, heartbeatInterval: Duration = .seconds(15)
        ) {
            self.basePath = basePath
            self.title = title
            self.sessionLifetime = sessionLifetime
            self.secureCookies = secureCookies
            self.maximumBodySize = maximumBodySize
            self.historyLimit = historyLimit
            self.heartbeatInterval = heartbeatInterval
        }
    }

    /// The session key is shorter than 32 bytes.
    public struct ShortSessionKey: Error, Sendable, CustomStringConvertible {
        public var description: String {
            "AdminPage's session key must be at least 32 random bytes, the same on every server of the fleet."
        }
    }

    public let options: Options
    let flags: AdminFlags
    let settings: (any UnderlyingStorage)?
    let users: AdminUsers
    let sessions: AdminSessions
    let html: AdminHTML
    let broadcast: FlagChangeBroadcast
    static let cookieName = "stowage_admin"

    /// A page for `flags` and, when given, the settings of `settings`.
    /// - Parameters:
    ///   - flags: the pole whose flags the page lists and changes; its
    ///     remote store's history (and its overrides', when they keep one)
    ///     is the flags' history.
    ///   - settings: a store whose keys and values the page lists, secret
    ///     ones redacted, with their history when it keeps one.
    ///   - users: who may sign in, and as what.
    ///   - sessionKey: at least 32 random bytes, the same on every server
    ///     that serves the page, kept as a secret (a session signed with it is a sign-in).
    ///   - options: the page's path, title, and limits.
    /// - Throws: ``ShortSessionKey``.
    public init<Container>(
        flags: FlagPole<Container>, settings: (any UnderlyingStorage)? = nil, users: AdminUsers, sessionKey: [UInt8], options: Options = Options()
    ) throws(ShortSessionKey) {
        guard sessionKey.count >= 32 else { throw ShortSessionKey() }
        var options = options
        while options.basePath.hasSuffix("/") { options.basePath.removeLast() }
        self.options = options
        let adminFlags = AdminFlags(flags)
        self.flags = adminFlags
        self.settings = settings
        self.users = users
        sessions = AdminSessions(key: sessionKey, lifetime: options.sessionLifetime)
        html = AdminHTML(base: options.basePath, title: options.title)
        var observers: [@Sendable (_ handler: @escaping @Sendable () -> Void) -> ObservationToken] = [adminFlags.observe]
        if let settings { observers.append { handler in settings.observe { _ in handler() } } }
        broadcast = FlagChangeBroadcast(observing: observers)
    }

    /// Adds the page's routes to `router`, under ``Options/basePath``.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        let group = router.group(RouterPath(options.basePath.isEmpty ? "/" : options.basePath))
        group.get("/") { request, _ in try await self.listPage(request) }
        group.get("sign-in") { _, _ in self.htmlResponse(self.html.signIn(error: nil)) }
        group.post("sign-in") { request, _ in try await self.signIn(request) }
        group.post("sign-out") { request, _ in try await self.signOut(request) }
        group.get("flags/{key}") { request, context in try await self.flagPage(request, key: context.parameters.require("key")) }
        for action in FlagAction.allCases {
            group.post("flags/{key}/\(action.rawValue)") { request, context in
                try await self.change(request, key: context.parameters.require("key"), action: action)
            }
        }
        group.get("settings/{key}") { request, context in try await self.settingPage(request, key: context.parameters.require("key")) }
        group.get("events") { request, _ in self.events(request) }
        group.get("api/history") { request, _ in try await self.historyAPI(request) }
        group.post("api/flags/{key}") { request, context in try await self.setValueAPI(request, key: context.parameters.require("key")) }
        group.get("assets/admin.css") { _, _ in Self.asset(AdminAssets.css, type: "text/css; charset=utf-8") }
        group.get("assets/admin.js") { _, _ in Self.asset(AdminAssets.script, type: "text/javascript; charset=utf-8") }
    }

    /// What a change request asks for.
    enum FlagAction: String, CaseIterable, Sendable {
        case value, rule, override
        case resetOverride = "override/reset"
    }

    // MARK: Responses

    /// Headers every page carries: no script, style or frame from elsewhere, nothing cached.
    static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .xContentTypeOptions: "nosniff", .referrerPolicy: "same-origin",
    ]

    func htmlResponse(_ html: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers = Self.pageHeaders
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    func redirect(to path: String, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.location: path, .cacheControl: "no-store", .contentLength: "0"]
        headers.append(contentsOf: extra)
        return Response(status: .seeOther, headers: headers)
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A refusal as a short page: what was wrong, and that nothing changed.
    func refusal(_ status: HTTPResponse.Status, _ message: String, viewer: AdminHTML.Viewer?) -> Response {
        htmlResponse(
            html.page(
                "Refused", viewer: viewer,
                "<h1>\(status.code) \(AdminHTML.escape(status.reasonPhrase))</h1><p class=\"error\" role=\"alert\" id=\"error\">\(AdminHTML.escape(message))</p>"
                    + "<p><a href=\"\(AdminHTML.escape(options.basePath))/\">Back to the flags</a></p>"),
            status: status)
    }

    // MARK: Sessions

    func session(of request: Request) -> AdminSessions.Session? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " })
                guard trimmed.hasPrefix(Self.cookieName + "=") else { continue }
                guard let session = sessions.session(fromCookie: String(trimmed.dropFirst(Self.cookieName.count + 1))),
                    let role = users.currentRole(of: session.name, signedInAs: session.role)
                else { continue }
                return AdminSessions.Session(name: session.name, role: role, expires: session.expires, cookie: session.cookie)
            }
        }
        return nil
    }

    func viewer(_ session: AdminSessions.Session) -> AdminHTML.Viewer {
        AdminHTML.Viewer(name: session.name, role: session.role, csrf: sessions.csrfToken(for: session))
    }

    func cookie(_ value: String, maxAge: Int64) -> HTTPFields {
        let path = options.basePath.isEmpty ? "/" : options.basePath
        return [.setCookie: "\(Self.cookieName)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict\(options.secureCookies ? "; Secure" : "")"]
    }

    /// Whether a browser says the request came from another site (`Sec-Fetch-Site`), which no change may.
    static func isCrossSite(_ request: Request) -> Bool {
        request.headers[.secFetchSite].map { $0 == "cross-site" || $0 == "same-site" } ?? false
    }

    func signIn(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        guard !Self.isCrossSite(request) else { return refusal(.forbidden, "A sign-in from another site is refused.", viewer: nil) }
        guard let fields = try? AdminForm.fields(of: body.readableBytesView) else {
            return htmlResponse(html.signIn(error: "The form could not be read."), status: .badRequest)
        }
        let token = fields["token"] ?? ""
        let account =
            token.isEmpty ? users.signIn(name: fields["name"] ?? "", password: fields["password"] ?? "") : users.signIn(token: token)
        guard let account else {
            return htmlResponse(html.signIn(error: "Wrong name, password or token."), status: .unauthorized)
        }
        let session = sessions.begin(name: account.name, role: account.role)
        return redirect(to: options.basePath + "/", headers: cookie(session.cookie, maxAge: options.sessionLifetime.components.seconds))
    }

    func signOut(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        guard let session = session(of: request) else { return redirect(to: options.basePath + "/sign-in") }
        guard let fields = try? AdminForm.fields(of: body.readableBytesView), sessions.checkCSRF(fields["csrf"] ?? "", for: session) else {
            return refusal(.forbidden, "The request carried no valid CSRF token; you are still signed in.", viewer: viewer(session))
        }
        return redirect(to: options.basePath + "/sign-in", headers: cookie("", maxAge: 0))
    }

    // MARK: Live updates

    func events(_ request: Request) -> Response {
        guard session(of: request) != nil else { return Response(status: .unauthorized, headers: [.contentLength: "0"]) }
        let lastEventID = request.headers[.lastEventID].flatMap { UInt64($0) }
        let stream = ChangeEventStream(broadcast: broadcast, heartbeatInterval: options.heartbeatInterval, lastEventID: lastEventID)
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .xAccelBuffering: "no"], body: stream.body)
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
}
