import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StowageFlags
import StowageHTTP
import Testing

/// Who may call the endpoints: tokens kept as digests, given either way
/// OFREP allows; every other caller gets 401 and learns nothing.
struct AccessTokenTests {
    @Test func aTokenIsAcceptedAsABearerOrAnAPIKeyAndNothingElseIs() async throws {
        let flags = try ServedShop.pole()
        try await ServedShop.application(flags).test(.router) { client in
            let path = "/ofrep/v1/evaluate/flags/new-checkout"
            let body = #"{"context": {}}"#
            #expect(try await client.post(path, body, headers: [.authorization: "Bearer \(ServedShop.token)"]).status == .ok)
            #expect(try await client.post(path, body, headers: [.authorization: "bearer  \(ServedShop.token) "]).status == .ok)
            #expect(try await client.post(path, body, headers: [HTTPField.Name("X-API-Key")!: ServedShop.token]).status == .ok)
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer wrong"], [.authorization: "Basic \(ServedShop.token)"], [.authorization: ServedShop.token],
                [HTTPField.Name("X-API-Key")!: ServedShop.token + "x"], [.authorization: "Bearer "],
                // A wrong credential beside a right one.
                [.authorization: "Bearer \(ServedShop.token)", HTTPField.Name("X-API-Key")!: "guess"],
                [.authorization: "Basic dXNlcjpwYXNz", HTTPField.Name("X-API-Key")!: ServedShop.token],
            ] {
                let response = try await client.post(path, body, headers: headers)
                #expect(response.status == .unauthorized, "\(headers)")
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test func aRefusedCallerCanNotTellAFlagThatExistsFromOneThatDoesNot() async throws {
        let flags = try ServedShop.pole()
        try await ServedShop.application(flags).test(.router) { client in
            let known = try await client.post("/ofrep/v1/evaluate/flags/new-checkout", #"{"context": {}}"#, headers: [:])
            let unknown = try await client.post("/ofrep/v1/evaluate/flags/no-such-flag", #"{"context": {}}"#, headers: [:])
            let malformed = try await client.post("/ofrep/v1/evaluate/flags", "not json", headers: [:])
            for response in [known, unknown, malformed] {
                #expect(response.status == .unauthorized)
                #expect(response.body.readableBytes == 0)
            }
            #expect(known.headers == unknown.headers)
        }
    }

    @Test func digestsAreWhatSha256sumPrintsAndABadOneIsNamedByPosition() throws {
        // printf %s test-token-0123456789abcdef | sha256sum
        let digest = "67e95073ea7d2f92f361b2b3a590935f82b670e8c5d7d96ac622282e2f7accc3"
        #expect(AccessTokens.sha256Digest(of: ServedShop.token) == digest)
        let tokens = try AccessTokens(sha256Digests: ["00" + String(repeating: "a", count: 62), digest.uppercased()])
        #expect(tokens.accepts(ServedShop.token))
        #expect(!tokens.accepts("test-token-0123456789abcdeg"))
        #expect(!AccessTokens([]).accepts(""))
        #expect(throws: AccessTokens.InvalidDigest.self) { try AccessTokens(sha256Digests: [digest, "xyz"]) }
        do {
            _ = try AccessTokens(sha256Digests: [digest, String(digest.dropLast())])
            Issue.record("a short digest was accepted")
        } catch {
            #expect(error.position == 1)
        }
    }

    @Test func aDescriptionShowsNeitherTokensNorDigests() {
        let tokens = AccessTokens([ServedShop.token, "another"])
        #expect(tokens.description == "AccessTokens(2 accepted)")
        #expect(!"\(tokens)".contains("test-token"))
        var dumped = ""
        dump(tokens, to: &dumped)
        #expect(!dumped.contains("103") && !dumped.contains("231"), "\(dumped)")  // the digest's first bytes, 0x67 and 0xe7
        #expect(dumped.contains("accepted: 2"))
    }
}
