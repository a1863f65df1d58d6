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
import StowageLocking
import Testing

/// Single and bulk evaluation as OFREP's OpenAPI description gives them:
/// bodies, status codes, reasons, variants, errors and entity tags.
struct OFREPEvaluationTests {
    let flags: FlagPole<ShopFlags>

    init() throws { flags = try ServedShop.pole() }

    private func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await ServedShop.application(flags).test(.router, body)
    }

    @Test func aTargetedFlagIsEvaluatedForTheRequestsContext() async throws {
        try await test { client in
            let acme = try await client.post("/ofrep/v1/evaluate/flags/new-checkout", #"{"context": {"targetingKey": "u1", "tenant": "acme"}}"#)
            #expect(acme.status == .ok)
            #expect(acme.headers[.contentType] == "application/json")
            #expect(
                try acme.json() == [
                    "key": "new-checkout", "value": true, "variant": "on", "reason": "TARGETING_MATCH",
                    "metadata": ["flagSetId": "shop", "owner": "checkout-team"],
                ])
            let other = try await client.post("/ofrep/v1/evaluate/flags/new-checkout", #"{"context": {"targetingKey": "u2", "tenant": "initech"}}"#)
            // The rule gives null: the default variant. Stowage's DEFAULT is sent as STATIC, the reason OFREP allows.
            #expect(try other.json()["value"] == false)
            #expect(try other.json()["variant"] == "off")
            #expect(try other.json()["reason"] == "STATIC")
        }
    }

    @Test func aPercentageRolloutSplitsByTargetingKeyAsTheEngineDoes() async throws {
        try await test { client in
            for user in ["alice", "bob", "carol", "dave", "erin", "frank"] {
                let served = try await client.post("/ofrep/v1/evaluate/flags/rate-limit", #"{"context": {"targetingKey": "\#(user)"}}"#).json()
                let local = flags.details(forKey: "rate-limit", for: EvaluationContext(targetingKey: user))
                #expect(served["reason"] == "SPLIT")
                #expect(served["variant"] == local.variant.map(StoredValue.string))
                #expect(served["value"] == local.value)
            }
        }
    }

    @Test func everyTypeOfValueIsSentAsJSONOfItsType() async throws {
        try await test { client in
            let theme = try await client.post("/ofrep/v1/evaluate/flags/theme", #"{"context": {}}"#)
            #expect(try theme.json()["value"] == ["background": "#000", "contrast": 1.5])
            let ratio = try await client.post("/ofrep/v1/evaluate/flags/ratio", #"{"context": {}}"#)
            // A float flag's whole value stays a float in JSON, so typed clients read it as one.
            #expect(String(buffer: ratio.body).contains(#""value":1.0"#))
            let limit = try await client.post("/ofrep/v1/evaluate/flags/rate-limit", #"{"context": {"targetingKey": "bob"}}"#)
            #expect(try [StoredValue.signedInteger(10), .signedInteger(1000)].contains(limit.json()["value"]!))
        }
    }

    @Test func aDisabledFlagDefersToTheCallersDefaultNotTheDeclaredOne() async throws {
        try await test { client in
            let banner = try await client.post("/ofrep/v1/evaluate/flags/banner", #"{"context": {}}"#).json()
            #expect(banner["reason"] == "DISABLED")
            #expect(banner["value"] == nil)
        }
    }

    @Test func aDeclaredFlagWithoutAConfigurationServesItsValueWithItsOriginAsVariant() async throws {
        try await test { client in
            let plain = try await client.post("/ofrep/v1/evaluate/flags/plain", #"{"context": {}}"#).json()
            // No configuration names it, so the flag set's metadata is not its own.
            #expect(plain == ["key": "plain", "value": 3, "reason": "STATIC", "variant": "default"])
            try flags.override(key: "plain", with: 7)
            let overridden = try await client.post("/ofrep/v1/evaluate/flags/plain", #"{"context": {}}"#).json()
            #expect(overridden["value"] == 7)
            #expect(overridden["variant"] == "override")
        }
    }

    @Test func anUnknownFlagIs404WithItsKey() async throws {
        try await test { client in
            let response = try await client.post("/ofrep/v1/evaluate/flags/no-such-flag", #"{"context": {}}"#)
            #expect(response.status == .notFound)
            #expect(try response.json()["errorCode"] == "FLAG_NOT_FOUND")
            #expect(try response.json()["key"] == "no-such-flag")
        }
    }

    @Test(arguments: [
        ("not json", "PARSE_ERROR", "is not JSON"),
        (#"[1, 2]"#, "PARSE_ERROR", "not a JSON object"),
        (#"{"context": "me"}"#, "INVALID_CONTEXT", #""context" is not an object"#),
        (#"{"context": null}"#, "INVALID_CONTEXT", #""context" is not an object"#),
        (#"{"context": {"targetingKey": 12}}"#, "INVALID_CONTEXT", #""targetingKey" is not text"#),
        (#"{"context": {"targetingKey": null}}"#, "INVALID_CONTEXT", #""targetingKey" is not text"#),
        (#"{"context": {"deep": [[[[[[[[[1]]]]]]]]]}}"#, "INVALID_CONTEXT", #""deep" nests more than 8 levels"#),
    ])
    func aRequestItCanNotReadIs400WithWhy(body: String, code: String, words: String) async throws {
        try await test { client in
            for path in ["/ofrep/v1/evaluate/flags/new-checkout", "/ofrep/v1/evaluate/flags"] {
                let response = try await client.post(path, body)
                #expect(response.status == .badRequest)
                let failure = try response.json()
                #expect(failure["errorCode"] == .string(code))
                guard case .string(let details)? = failure["errorDetails"] else { Issue.record("no errorDetails"); continue }
                #expect(details.contains(words), "\(details)")
                // The single endpoint names its flag; the bulk one has none to name.
                #expect((failure["key"] != nil) == path.hasSuffix("new-checkout"))
            }
        }
    }

    @Test func aBodyOverTheLimitIs413AndNotRead() async throws {
        let options = OFREPEndpoint.Options(maximumBodySize: 1024)
        try await ServedShop.application(flags, options: options).test(.router) { client in
            let large = #"{"context": {"targetingKey": "u", "padding": ""# + String(repeating: "x", count: 2000) + #""}}"#
            let single = try await client.post("/ofrep/v1/evaluate/flags/new-checkout", large)
            let bulk = try await client.post("/ofrep/v1/evaluate/flags", large)
            #expect(single.status == .contentTooLarge)
            #expect(bulk.status == .contentTooLarge)
        }
    }

    @Test func aFlagWhoseRuleFailsIs400WithTheEnginesError() async throws {
        try flags.update(
            with: Data(
                #"{"flags": {"broken": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"var": "pick"}}}}"#.utf8),
            mode: .patch)
        try await test { client in
            let response = try await client.post("/ofrep/v1/evaluate/flags/broken", #"{"context": {"pick": "zzz"}}"#)
            #expect(response.status == .badRequest)
            #expect(try response.json()["errorCode"] == "GENERAL")
            #expect(try response.json()["key"] == "broken")
        }
    }

    @Test func aRequestWithoutAContextOrATargetingKeyIsEvaluatedForAnEmptyOne() async throws {
        try await test { client in
            for body in ["{}", #"{"context": {}}"#] {
                let response = try await client.post("/ofrep/v1/evaluate/flags/rate-limit", body)
                #expect(response.status == .ok)
                // A rollout without a key to bucket by gives its default variant.
                #expect(try response.json()["variant"] == "low")
            }
        }
    }

    @Test func anEventsChangeMetadataIsAcceptedWhenItIsOfItsType() async throws {
        try await test { client in
            let body = #"{"context": {}}"#
            for query in ["flagConfigEtag=abc&flagConfigLastModified=1771622898", "flagConfigLastModified=2026-02-20T21:28:18Z", "flagConfigEtag="] {
                #expect(try await client.post("/ofrep/v1/evaluate/flags?\(query)", body).status == .ok, "\(query)")
            }
            for query in ["flagConfigLastModified=", "flagConfigLastModified=-5", "flagConfigLastModified=yesterday"] {
                let response = try await client.post("/ofrep/v1/evaluate/flags?\(query)", body)
                #expect(response.status == .badRequest, "\(query)")
                #expect(try response.json()["errorCode"] == "PARSE_ERROR")
            }
        }
    }

    @Test func anotherMethodIs405WithTheOneAllowed() async throws {
        try await test { client in
            for (path, allowed) in [("/ofrep/v1/evaluate/flags/new-checkout", "POST"), ("/ofrep/v1/evaluate/flags", "POST"), ("/ofrep/v1/events", "GET")] {
                for method: HTTPRequest.Method in [.put, .delete, .trace, .patch] {
                    let response = try await client.execute(uri: path, method: method, headers: ServedShop.authorized)
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    #expect(response.headers[.allow] == allowed)
                }
            }
            #expect(try await client.execute(uri: "/ofrep/v1/evaluate/flags", method: .get, headers: ServedShop.authorized).status == .methodNotAllowed)
        }
    }

    @Test func bulkEvaluationListsEveryFlagWithTheEventStream() async throws {
        try await test { client in
            let response = try await client.post("/ofrep/v1/evaluate/flags", #"{"context": {"targetingKey": "u1", "tenant": "acme"}}"#)
            #expect(response.status == .ok)
            let body = try response.json()
            guard case .array(let evaluations)? = body["flags"] else { Issue.record("no flags"); return }
            let keys = evaluations.compactMap { $0["key"] }
            #expect(keys == ["banner", "new-checkout", "plain", "rate-limit", "ratio", "theme"])
            #expect(evaluations[1]["value"] == true)
            #expect(body["metadata"] == ["flagSetId": "shop"])
            #expect(body["eventStreams"] == [["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]])
        }
    }

    @Test func anUnchangedBulkEvaluationIs304ForItsETagAndAChangeGivesANewOne() async throws {
        try await test { client in
            let context = #"{"context": {"targetingKey": "u1", "tenant": "acme"}}"#
            let first = try await client.post("/ofrep/v1/evaluate/flags", context)
            let tag = try #require(first.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
            var conditional = ServedShop.authorized
            conditional[.ifNoneMatch] = tag
            let again = try await client.post("/ofrep/v1/evaluate/flags", context, headers: conditional)
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            #expect(again.headers[.eTag] == tag)
            conditional[.ifNoneMatch] = #"W/"0000", \#(tag)"#
            #expect(try await client.post("/ofrep/v1/evaluate/flags", context, headers: conditional).status == .notModified)

            // Another context is another evaluation, and so another tag.
            let other = try await client.post("/ofrep/v1/evaluate/flags", #"{"context": {"targetingKey": "u1", "tenant": "initech"}}"#, headers: conditional)
            #expect(other.status == .ok)
            #expect(other.headers[.eTag] != tag)

            try flags.override(key: "plain", with: 99)
            let changed = try await client.post("/ofrep/v1/evaluate/flags", context, headers: conditional)
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
        }
    }

    @Test func servedEvaluationsRunThePolesHooksWithTheRequestsContext() async throws {
        struct Seen: FlagHook {
            let keys: Locked<[String]>
            func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) throws {
                keys.withLock { $0.append("\(hook.flagKey) \(hook.evaluationContext.targetingKey ?? "-") \(evaluation.variant ?? "-")") }
            }
        }
        let keys = Locked<[String]>([])
        flags.addHook(Seen(keys: keys))
        try await test { client in
            _ = try await client.post("/ofrep/v1/evaluate/flags/new-checkout", #"{"context": {"targetingKey": "u9", "tenant": "acme"}}"#)
            #expect(keys.withLock { $0 } == ["new-checkout u9 on"])
            _ = try await client.post("/ofrep/v1/evaluate/flags", #"{"context": {"targetingKey": "u9"}}"#)
            #expect(keys.withLock { $0.count } == 1 + 6)
        }
    }

    @Test func aPoleThatDeclaresNothingServesItsDefinitions() async throws {
        let bare = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore())
        try bare.update(with: Data(ServedShop.definitions.utf8))
        try await ServedShop.application(bare).test(.router) { client in
            let body = try await client.post("/ofrep/v1/evaluate/flags", #"{"context": {"tenant": "globex"}}"#).json()
            guard case .array(let evaluations)? = body["flags"] else { Issue.record("no flags"); return }
            #expect(evaluations.compactMap { $0["key"] } == ["banner", "new-checkout", "rate-limit", "ratio", "theme"])
            #expect(evaluations[1]["value"] == true)
            // Without a targeting key a rollout has nothing to bucket by: its default variant, as flagd gives.
            #expect(evaluations[2]["variant"] == "low")
        }
    }
}
