import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sessions of the admin page as signed cookies: the user's name, role and
/// expiry, with an HMAC-SHA256 of them under the fleet's session key. Any
/// server of the fleet given the same key accepts a session another began,
/// so a load balancer may send each request anywhere, and no server keeps
/// state. The CSRF token of a session is an HMAC of it too: a page of
/// another site can neither read it nor make it.
struct AdminSessions: Sendable {
    struct Session: Sendable, Equatable {
        let name: String
        let role: AdminUsers.Role
        let expires: Int64
        /// The cookie's value, from which the CSRF token is made.
        let cookie: String
    }

    private let key: SymmetricKey
    let lifetime: Duration

    init(key: [UInt8], lifetime: Duration) {
        self.key = SymmetricKey(data: key)
        self.lifetime = lifetime
    }

    /// A new session's cookie value.
    func begin(name: String, role: AdminUsers.Role, now: Date = Date()) -> Session {
        let expires = Int64(now.timeIntervalSince1970) + lifetime.components.seconds
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let payload = [Self.base64URL(Array(name.utf8)), role.rawValue, String(expires), Self.base64URL(nonce)].joined(separator: ".")
        let cookie = payload + "." + Self.base64URL(Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key)))
        return Session(name: name, role: role, expires: expires, cookie: cookie)
    }

    /// The session a cookie's value holds, when its signature is right and it has not expired.
    func session(fromCookie cookie: String, now: Date = Date()) -> Session? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, let mac = Self.bytes(base64URL: parts[4]) else { return nil }
        let payload = parts[0..<4].joined(separator: ".")
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array(payload.utf8), using: key),
            let nameBytes = Self.bytes(base64URL: parts[0]), let name = String(validating: nameBytes, as: UTF8.self),
            let role = AdminUsers.Role(rawValue: String(parts[1])), let expires = Int64(parts[2]),
            expires > Int64(now.timeIntervalSince1970)
        else { return nil }
        return Session(name: name, role: role, expires: expires, cookie: cookie)
    }

    /// The session's CSRF token, which every form and request that changes something must carry.
    func csrfToken(for session: Session) -> String {
        Self.base64URL(Array(HMAC<SHA256>.authenticationCode(for: Array(("csrf." + session.cookie).utf8), using: key)))
    }

    /// Whether `token` is the session's CSRF token, compared in constant time.
    func checkCSRF(_ token: String, for session: Session) -> Bool {
        guard let given = Self.bytes(base64URL: Substring(token)) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Array(("csrf." + session.cookie).utf8), using: key)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }

    static func bytes(base64URL text: Substring) -> [UInt8]? {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
