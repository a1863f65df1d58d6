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

/// The flags the tests serve, and a server of them.
struct ShopFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @Flag("The banner's text") var banner = "Welcome"
    @Flag("A flag no configuration names") var plain = 3
}

enum ServedShop {
    static let token = "test-token-0123456789abcdef"

    static let definitions = #"""
        {"flags": {
            "new-checkout": {
                "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                "targeting": {"if": [{"in": [{"var": "tenant"}, ["acme", "globex"]]}, "on", null]},
                "metadata": {"owner": "checkout-team"}
            },
            "rate-limit": {
                "state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "low",
                "targeting": {"fractional": [["high", 50], ["low", 50]]}
            },
            "banner": {"state": "DISABLED", "variants": {"a": "Hello"}, "defaultVariant": "a"},
            "theme": {"state": "ENABLED", "variants": {"dark": {"background": "#000", "contrast": 1.5}}, "defaultVariant": "dark"},
            "ratio": {"state": "ENABLED", "variants": {"half": 0.5, "whole": 1.0}, "defaultVariant": "whole"}
        },
        "metadata": {"flagSetId": "shop"}}
        """#

    static func pole() throws -> FlagPole<ShopFlags> {
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
        let result = try flags.update(with: Data(definitions.utf8))
        guard result.rejected.isEmpty else { throw result.rejected[0] }
        return flags
    }

    static func application(
        _ flags: FlagPole<some FlagContainer>, options: OFREPEndpoint.Options = OFREPEndpoint.Options(), port: Int = 0
    ) -> some ApplicationProtocol {
        let router = Router()
        OFREPEndpoint(serving: flags, accessTokens: AccessTokens([token]), options: options).addRoutes(to: router)
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    }

    static let authorized: HTTPFields = [.authorization: "Bearer \(token)"]
}

extension TestClientProtocol {
    /// Posts `body` to an OFREP path with the test token.
    func post(_ path: String, _ body: String, headers: HTTPFields = ServedShop.authorized) async throws -> TestResponse {
        try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }
}

extension TestResponse {
    /// The body, parsed: the test fails on a body that is not JSON.
    func json() throws -> StoredValue {
        try StoredValue(jsonText: String(buffer: body))
    }
}

extension StoredValue {
    subscript(_ name: String) -> StoredValue? {
        guard case .dictionary(let members) = self else { return nil }
        return members[name]
    }
}
