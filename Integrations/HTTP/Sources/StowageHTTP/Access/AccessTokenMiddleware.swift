import HTTPTypes
import Hummingbird

/// Refuses a request without an accepted token with 401 and an empty body,
/// before anything reads it: a caller without a token learns nothing, not
/// even whether a flag exists. A request that presents a token both ways
/// must present accepted ones both ways: a wrong credential beside a right
/// one is refused, not ignored.
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: AccessTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let presented = Self.tokens(of: request)
        guard !presented.isEmpty, presented.allSatisfy(tokens.accepts) else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .contentLength: "0"])
        }
        return try await next(request, context)
    }

    /// Every credential the request presents: each `Authorization` and
    /// `X-API-Key` field, an `Authorization` of another scheme as an empty
    /// token, which nothing accepts.
    static func tokens(of request: Request) -> [String] {
        let bearers = request.headers[values: .authorization].map { authorization -> String in
            let parts = authorization.trimmingSpaces.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "" }
            return String(parts[1].trimmingSpaces)
        }
        return bearers + request.headers[values: .xAPIKey].map { String($0.trimmingSpaces) }
    }
}

extension HTTPField.Name {
    /// OFREP's header for an API key.
    static let xAPIKey = HTTPField.Name("X-API-Key")!
}
