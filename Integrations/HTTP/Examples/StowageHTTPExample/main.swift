// A server of targeted flags over OFREP, on 127.0.0.1:8016 (or the port in PORT, 0 for any free
// one), until SIGINT or SIGTERM.
//   swift run --package-path Integrations/HTTP stowage-http-example
// then, from another shell:
//   curl -s -H 'Authorization: Bearer example-token' -d '{"context":{"targetingKey":"user-1","plan":"pro"}}' \
//        http://127.0.0.1:8016/ofrep/v1/evaluate/flags/new-checkout
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StowageFlags
import StowageHTTP
import StowageInMemory
import UnixSignals

struct ShopFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
}

let definitions = #"""
    {"flags": {
        "new-checkout": {
            "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}
        },
        "rate-limit": {
            "state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "low",
            "targeting": {"fractional": [["high", 25], ["low", 75]]}
        }
    }}
    """#

let logger = Logger(label: "stowage-http-example")
let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore())
try flags.update(with: Data(definitions.utf8))

// In production the digest comes from configuration, and the token only to clients.
let tokens = try AccessTokens(sha256Digests: [AccessTokens.sha256Digest(of: "example-token")])
let router = Router()
OFREPEndpoint(serving: flags, accessTokens: tokens).addRoutes(to: router)
let port = ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) ?? 8016
let server = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        print("Serving OFREP on http://127.0.0.1:\(channel.localAddress?.port ?? port)\(OFREPEndpoint.basePath) (token: example-token)")
        fflush(nil)
    }, logger: logger)

let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
