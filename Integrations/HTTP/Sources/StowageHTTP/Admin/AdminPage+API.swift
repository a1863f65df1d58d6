import HTTPTypes
import Hummingbird
import NIOCore
import Stowage
import StowageHistory
import StowageFlags
import StowageJSON

/// The JSON the `stowage` tool sends and reads, for a user's token
/// (`Authorization: Bearer`): no cookie, so no CSRF token is needed or accepted.
extension AdminPage {
    /// The user a request's bearer token signs in as.
    func tokenUser(of request: Request) -> (name: String, role: AdminUsers.Role)? {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else { return nil }
        return users.signIn(token: String(authorization.dropFirst(7)))
    }

    /// `POST api/flags/{key}` with `{"value": "250"}`: the value, as text
    /// read by the flag's type exactly as the page's form is, set for the
    /// whole fleet as the token's user. Answers the flag's new state, or
    /// `{"error": …}` with 400, 401, 403, 404 or 422, having changed nothing.
    func setValueAPI(_ request: Request, key: String) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        guard let user = tokenUser(of: request) else { return Self.json(["error": "unauthorized"], status: .unauthorized) }
        guard let state = flags.state(key) else { return Self.json(["error": .string("No flag has the key \(key).")], status: .notFound) }
        guard user.role == .editor else {
            if let history = flags.histories.first?.history {
                try? await history.recordRefusal(forKey: key, author: user.name, reason: "\(user.name) is a viewer, and viewers may not change flags")
            }
            return Self.json(["error": "Viewers may not change flags; nothing was changed."], status: .forbidden)
        }
        guard case .dictionary(let members)? = try? StoredValue(jsonText: String(buffer: body), maximumDepth: 8),
            case .string(let text)? = members["value"]
        else {
            return Self.json(["error": #"The body must be {"value": "…"}, the value as text; nothing was changed."#], status: .badRequest)
        }
        do {
            _ = try await ChangeAuthor.$name.withValue(user.name) { () async throws(AdminRefusal) -> String in
                try await apply(.value, to: state, fields: ["value": text])
            }
        } catch {
            return Self.json(["error": .string((error as? AdminRefusal)?.message ?? "\(error)")], status: .unprocessableContent)
        }
        let now = flags.state(key) ?? state
        return Self.json(["key": .string(key), "value": now.value, "origin": .string(now.origin.rawValue)], status: .ok)
    }
}
