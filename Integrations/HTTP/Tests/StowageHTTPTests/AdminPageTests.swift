import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Stowage
import StowageFlags
import StowageHTTP
import StowageInMemory
import StowageJSON
import Testing

/// The admin page at the HTTP level: sign-in, sessions, roles, CSRF, typed
/// edits, and every kind of bad request refused with nothing changed.
/// (Its history and live updates, on a PostgreSQL fleet in a browser, are
/// tested by Scripts/check-admin-page.sh.)
struct AdminPageTests {
    let flags: FlagPole<ShopFlags>
    let settings = InMemoryStore(["region": "eu-west", "motto": "<b>bold</b>"])
    static let sessionKey = Array(repeating: UInt8(7), count: 32)

    init() throws { flags = try ServedShop.pole() }

    static let users: AdminUsers = {
        var users = AdminUsers()
        users.addUser("alice", passwordHash: AdminUsers.hashPassword("alice-password", cost: 4), role: .editor)
        users.addUser("victor", passwordHash: AdminUsers.hashPassword("victor-password", cost: 4), role: .viewer)
        try! users.addToken(sha256Digest: AccessTokens.sha256Digest(of: "bot-token"), name: "deploy-bot", role: .editor)
        return users
    }()

    private func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = Router()
        try AdminPage(flags: flags, settings: settings, users: Self.users, sessionKey: Self.sessionKey).addRoutes(to: router)
        try await Application(router: router).test(.router, body)
    }

    @Test func signingInSetsASecureHTTPOnlyCookieAndWrongCredentialsAreRefusedAlike() async throws {
        try await test { client in
            let anonymous = try await client.execute(uri: "/admin/", method: .get)
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/admin/sign-in")
            let withoutSlash = try await client.execute(uri: "/admin", method: .get)
            #expect(withoutSlash.status == .seeOther && withoutSlash.headers[.location] == "/admin/sign-in")
            let wrong = try await client.form("/admin/sign-in", ["name": "alice", "password": "nope"])
            let unknown = try await client.form("/admin/sign-in", ["name": "mallory", "password": "nope"])
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(
                String(buffer: wrong.body).contains("Wrong name, password or token.") && String(buffer: unknown.body).contains("Wrong name, password or token.")
            )
            #expect(wrong.headers[.setCookie] == nil)

            let signedIn = try await client.form("/admin/sign-in", ["name": "alice", "password": "alice-password"])
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/admin/")
            let cookie = try #require(signedIn.headers[.setCookie])
            for attribute in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/admin"] { #expect(cookie.contains(attribute), "\(cookie)") }
            #expect(!cookie.contains("alice-password"))
            let byToken = try await client.form("/admin/sign-in", ["token": "bot-token"])
            #expect(byToken.status == .seeOther)
            let page = try await client.execute(uri: "/admin/", method: .get, headers: [.cookie: try Self.cookie(byToken)])
            #expect(String(buffer: page.body).contains("deploy-bot · editor"))
            #expect(page.headers[.init("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
        }
    }

    @Test func theListShowsEveryFlagWithItsTypeValueOriginAndTargetingAndTheSettingsEscaped() async throws {
        try await test { client in
            let session = try await Session.signIn(client, "victor", "victor-password")
            let page = String(buffer: try await client.execute(uri: "/admin/", method: .get, headers: session.headers).body)
            #expect(page.contains(#"data-key="new-checkout""#) && page.contains(#"data-key="rate-limit""#) && page.contains(#"data-key="plain""#))
            #expect(page.contains("Shows the new checkout flow"))
            #expect(page.contains(#"<td class="origin">targeting</td>"#) || page.contains(#"<td class="origin">remote</td>"#))
            #expect(page.contains("<td>targets</td>"))
            #expect(page.contains("&lt;b&gt;bold&lt;/b&gt;") && !page.contains("<b>bold</b>"))
            #expect(!page.contains("Turn on"), "a viewer gets no buttons that change anything")
            let searched = String(buffer: try await client.execute(uri: "/admin/?q=banner", method: .get, headers: session.headers).body)
            #expect(searched.contains(#"data-key="banner""#) && !searched.contains(#"data-key="rate-limit""#))
        }
    }

    @Test func anEditorSetsATypedValueAndIsRefusedOneOfAnotherTypeBeforeAnythingIsWritten() async throws {
        let flags = flags
        try await test { client in
            let session = try await Session.signIn(client, "alice", "alice-password")
            let refused = try await session.post(client, "/admin/flags/rate-limit/value", ["value": "maybe"])
            #expect(refused.status == .unprocessableContent)
            let text = String(buffer: refused.body)
            #expect(text.contains("rate-limit is") && text.contains("maybe") && text.contains("Nothing was changed."), "\(text)")
            #expect(text.contains(#"value="maybe""#), "the page keeps what was typed")
            #expect(flags.state(forKey: "rate-limit")?.origin != .remote)

            let saved = try await session.post(client, "/admin/flags/rate-limit/value", ["value": "250"])
            #expect(saved.status == .seeOther && saved.headers[.location] == "/admin/flags/rate-limit?saved=value")
            let after = String(buffer: try await client.execute(uri: "/admin/flags/rate-limit?saved=value", method: .get, headers: session.headers).body)
            #expect(after.contains("Saved: the value, for every server."))
            // The notice is a fixed sentence: words in a link never reach the page.
            let spoofed = String(
                buffer: try await client.execute(uri: "/admin/flags/rate-limit?saved=Your%20password%20expired", method: .get, headers: session.headers).body)
            #expect(!spoofed.contains("password expired") && !spoofed.contains(#"id="notice""#))
            #expect(flags.rateLimit == 250)
            #expect(flags.state(forKey: "rate-limit")?.origin == .remote)
            _ = try await session.post(client, "/admin/flags/new-checkout/value", ["value": "true"])
            #expect(flags.newCheckout)
        }
    }

    @Test func aRuleIsCheckedByTheParserOfDefinitionsBeforeItIsSaved() async throws {
        let flags = flags
        try await test { client in
            let session = try await Session.signIn(client, "alice", "alice-password")
            let notJSON = try await session.post(client, "/admin/flags/new-checkout/rule", ["targeting": #"{"if": [ "#])
            #expect(notJSON.status == .unprocessableContent && String(buffer: notJSON.body).contains("is not JSON"))
            let badRule = try await session.post(client, "/admin/flags/new-checkout/rule", ["targeting": #"{"frobnicate": [{"var": "tenant"}]}"#])
            #expect(badRule.status == .unprocessableContent, "a rule with an operator JsonLogic lacks")
            #expect(String(buffer: badRule.body).contains("targeting rule is not valid"), "\(String(buffer: badRule.body))")
            #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])), "the old rule still holds")

            let saved = try await session.post(
                client, "/admin/flags/new-checkout/rule", ["targeting": #"{"if": [{"==": [{"var": "tenant"}, "initech"]}, "on", "off"]}"#])
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "initech"])))
            #expect(!flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])))
            // A flag defined by value alone gets a rule, with variants made from its value.
            let plain = try await session.post(client, "/admin/flags/plain/rule", ["targeting": #"{"if": [{"==": [{"var": "tier"}, "gold"]}, "value", null]}"#])
            #expect(plain.status == .seeOther, "\(String(buffer: plain.body))")
            #expect(flags.state(forKey: "plain")?.hasTargeting == true && flags.plain == 3)
        }
    }

    @Test func overridesAreSetAndReset() async throws {
        let flags = flags
        try await test { client in
            let session = try await Session.signIn(client, "alice", "alice-password")
            #expect(try await session.post(client, "/admin/flags/banner/override", ["value": "Hi there"]).status == .seeOther)
            #expect(flags.banner == "Hi there" && flags.state(forKey: "banner")?.origin == .override)
            #expect(try await session.post(client, "/admin/flags/banner/override/reset", [:]).status == .seeOther)
            #expect(flags.state(forKey: "banner")?.origin != .override)
        }
    }

    @Test func badRequestsAreRefusedClearlyAndChangeNothing() async throws {
        let flags = flags
        try await test { client in
            let alice = try await Session.signIn(client, "alice", "alice-password")
            let victor = try await Session.signIn(client, "victor", "victor-password")
            let before = flags.all
            func refusal(_ response: TestResponse, _ status: HTTPResponse.Status, _ words: String) {
                #expect(response.status == status, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains(words), "\(String(buffer: response.body))")
            }
            // No CSRF token, a wrong one, another session's.
            refusal(try await alice.post(client, "/admin/flags/rate-limit/value", ["value": "1"], csrf: .some(nil)), .forbidden, "no valid CSRF token")
            refusal(try await alice.post(client, "/admin/flags/rate-limit/value", ["value": "1"], csrf: "forged"), .forbidden, "no valid CSRF token")
            refusal(try await alice.post(client, "/admin/flags/rate-limit/value", ["value": "1"], csrf: victor.csrf), .forbidden, "no valid CSRF token")
            // A viewer's request, with its own valid token.
            refusal(try await victor.post(client, "/admin/flags/rate-limit/value", ["value": "1"]), .forbidden, "Viewers may not change flags")
            // From another site, with a valid token.
            refusal(
                try await alice.post(client, "/admin/flags/rate-limit/value", ["value": "1"], extra: [.init("Sec-Fetch-Site")!: "cross-site"]),
                .forbidden, "no valid CSRF token")
            // No session, a forged cookie, an unknown flag, a malformed form, an oversized body.
            refusal(try await client.form("/admin/flags/rate-limit/value", ["value": "1", "csrf": alice.csrf]), .unauthorized, "Sign in")
            let forged = alice.cookie.dropLast(2) + "AA"
            refusal(
                try await client.form("/admin/flags/rate-limit/value", ["value": "1", "csrf": alice.csrf], headers: [.cookie: "stowage_admin=\(forged)"]),
                .unauthorized, "Sign in")
            refusal(try await alice.post(client, "/admin/flags/no-such-flag/value", ["value": "1"]), .notFound, "No flag has the key no-such-flag")
            let malformed = try await client.execute(
                uri: "/admin/flags/rate-limit/value", method: .post, headers: alice.headers + [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "value=%zz&csrf=\(alice.csrf)"))
            refusal(malformed, .badRequest, "The form could not be read")
            let oversized = try await client.execute(
                uri: "/admin/flags/rate-limit/value", method: .post, headers: alice.headers,
                body: ByteBuffer(string: "csrf=\(alice.csrf)&value=" + String(repeating: "9", count: 70_000)))
            #expect(oversized.status == .contentTooLarge)
            #expect(flags.all == before, "nothing changed")
            // The JSON history needs a session or a token.
            #expect(try await client.execute(uri: "/admin/api/history", method: .get).status == .unauthorized)
        }
    }

    @Test func aSessionSignedWithAnotherKeyOrExpiredIsNoSession() async throws {
        let router = Router()
        try AdminPage(
            flags: flags, users: Self.users, sessionKey: Self.sessionKey, options: .init(sessionLifetime: .seconds(0))
        ).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let response = try await client.form("/admin/sign-in", ["name": "alice", "password": "alice-password"])
            let page = try await client.execute(uri: "/admin/", method: .get, headers: [.cookie: try Self.cookie(response)])
            #expect(page.status == .seeOther, "a session that has expired")
        }
        #expect(throws: AdminPage.ShortSessionKey.self) { try AdminPage(flags: flags, users: Self.users, sessionKey: [1, 2, 3]) }
    }

    static func cookie(_ response: TestResponse) throws -> String {
        let header = try #require(response.headers[.setCookie])
        return String(header.prefix(while: { $0 != ";" }))
    }
}

/// A signed-in user of the tests: the cookie, and the CSRF token its pages carry.
struct Session {
    let cookie: String
    let csrf: String
    var headers: HTTPFields { [.cookie: "stowage_admin=\(cookie)"] }

    static func signIn(_ client: any TestClientProtocol, _ name: String, _ password: String) async throws -> Session {
        let response = try await client.form("/admin/sign-in", ["name": name, "password": password])
        let cookie = String(try AdminPageTests.cookie(response).dropFirst("stowage_admin=".count))
        let page = String(buffer: try await client.execute(uri: "/admin/", method: .get, headers: [.cookie: "stowage_admin=\(cookie)"]).body)
        let marker = #"name="csrf" value=""#
        let start = try #require(page.range(of: marker)).upperBound
        return Session(cookie: cookie, csrf: String(page[start...].prefix(while: { $0 != "\"" })))
    }

    func post(
        _ client: any TestClientProtocol, _ path: String, _ fields: [String: String], csrf: String?? = .none, extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var fields = fields
        switch csrf {
        case .none: fields["csrf"] = self.csrf
        case .some(let given): fields["csrf"] = given
        }
        return try await client.form(path, fields, headers: headers + extra)
    }
}

extension TestClientProtocol {
    func form(_ path: String, _ fields: [String: String], headers: HTTPFields = [:]) async throws -> TestResponse {
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await execute(
            uri: path, method: .post, headers: headers + [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body))
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
    var fields = lhs
    fields.append(contentsOf: rhs)
    return fields
}
