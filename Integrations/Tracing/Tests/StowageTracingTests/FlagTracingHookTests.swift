import Foundation
import InMemoryTracing
import StowageFlags
import StowageInMemory
import StowageTracing
import Testing
import Tracing

/// The tracing hook: an event per evaluation on the current span, with OpenTelemetry's names.
struct FlagTracingHookTests {
    struct TracedFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
        @Flag("Requests a client may make each second") var rateLimit = 100
    }

    static let rule = #"""
        {"flags": {"new-checkout": {
            "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", null]}
        },
        "broken": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"var": "pick"}}},
        "metadata": {"flagSetId": "shop"}}
        """#

    private func pole(tracer: InMemoryTracer, recordsTargetingKey: Bool = false) throws -> FlagPole<TracedFlags> {
        let flags = try FlagPole(TracedFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(Self.rule.utf8))
        flags.addHook(FlagTracingHook(tracer: tracer, recordsTargetingKey: recordsTargetingKey))
        return flags
    }

    @Test func anEvaluationInsideASpanIsAnEventWithOpenTelemetrysNames() throws {
        let tracer = InMemoryTracer()
        let flags = try pole(tracer: tracer)
        let pro = EvaluationContext(targetingKey: "user-1", attributes: ["plan": "pro", "email": "ann@example.com"])
        tracer.withSpan("request") { _ in
            #expect(flags.value(\.newCheckout, for: pro) == true)
            _ = flags.rateLimit
        }
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.events.map(\.name) == ["feature_flag.evaluation", "feature_flag.evaluation"])
        let event = span.events[0].attributes
        #expect(event["feature_flag.key"]?.toSpanAttribute() == "new-checkout")
        #expect(event["feature_flag.result.variant"]?.toSpanAttribute() == "on")
        #expect(event["feature_flag.result.reason"]?.toSpanAttribute() == "targeting_match")
        #expect(event["feature_flag.result.value"]?.toSpanAttribute() == true)
        #expect(event["feature_flag.provider.name"]?.toSpanAttribute() == "Stowage")
        #expect(event["feature_flag.set.id"]?.toSpanAttribute() == "shop")
        #expect(event["feature_flag.context.id"] == nil)
        #expect(!"\(span.events)".contains("ann@example.com"))
        let plain = span.events[1].attributes
        #expect(plain["feature_flag.key"]?.toSpanAttribute() == "rate-limit")
        #expect(plain["feature_flag.result.reason"]?.toSpanAttribute() == "default")
        #expect(plain["feature_flag.result.value"]?.toSpanAttribute() == 100)
    }

    @Test func aFailedEvaluationCarriesTheErrorAndTheTargetingKeyWhenAskedFor() throws {
        let tracer = InMemoryTracer()
        let flags = try pole(tracer: tracer, recordsTargetingKey: true)
        tracer.withSpan("request") { _ in
            _ = flags.details(forKey: "broken", for: EvaluationContext(targetingKey: "user-2", attributes: ["pick": "zzz"]))
        }
        let event = try #require(tracer.finishedSpans.first?.events.first).attributes
        #expect(event["feature_flag.result.reason"]?.toSpanAttribute() == "error")
        #expect(event["error.type"]?.toSpanAttribute() == "general")
        #expect(event["feature_flag.context.id"]?.toSpanAttribute() == "user-2")
    }

    @Test func outsideASpanNothingIsRecorded() throws {
        let tracer = InMemoryTracer()
        let flags = try pole(tracer: tracer)
        #expect(flags.rateLimit == 100)
        #expect(tracer.finishedSpans.isEmpty && tracer.activeSpans.isEmpty)
    }
}
