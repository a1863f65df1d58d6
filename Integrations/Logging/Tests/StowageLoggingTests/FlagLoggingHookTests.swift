import Foundation
import InMemoryLogging
import Logging
import StowageFlags
import StowageInMemory
import StowageLogging
import Testing

/// The logging hook: a line per evaluation, personal data left out unless asked for.
struct FlagLoggingHookTests {
    struct LoggedFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
    }

    static let rule = #"""
        {"flags": {"new-checkout": {
            "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"==": [{"var": "email"}, "ann@example.com"]}, "on", null]}
        },
        "broken": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"var": "pick"}}}}
        """#

    @Test func anEvaluationIsLoggedWithItsVariantAndReasonAndNoContext() throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "flags") { _ in handler }
        logger.logLevel = .trace
        let flags = try FlagPole(LoggedFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(Self.rule.utf8))
        flags.addHook(FlagLoggingHook(logger: logger))
        let ann = EvaluationContext(targetingKey: "user-1", attributes: ["email": "ann@example.com"])
        #expect(flags.value(\.newCheckout, for: ann) == true)
        let line = try #require(handler.entries.last)
        #expect(line.level == .debug)
        #expect(line.message.description == #"Flag "new-checkout" evaluated to true (TARGETING_MATCH)"#)
        #expect(line.metadata[FlagLoggingHook.MetadataKey.variant] == "on")
        #expect(line.metadata[FlagLoggingHook.MetadataKey.reason] == "TARGETING_MATCH")
        #expect(line.metadata[FlagLoggingHook.MetadataKey.pole] == "LoggedFlags")
        let everything = "\(line.message) \(line.metadata)"
        #expect(!everything.contains("ann@example.com") && !everything.contains("user-1"))

        _ = flags.details(forKey: "broken", for: EvaluationContext(attributes: ["pick": "zzz"]))
        let failure = try #require(handler.entries.last)
        #expect(failure.level == .warning)
        #expect(failure.message.description.hasPrefix(#"Flag "broken" could not be evaluated: flag broken: its targeting rule gave a name"#))
        #expect(failure.metadata[FlagLoggingHook.MetadataKey.errorCode] == "GENERAL")
    }

    @Test func theContextIsLoggedWhenAskedFor() throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "flags") { _ in handler }
        let flags = try FlagPole(LoggedFlags(), overrides: InMemoryStore())
        flags.addHook(FlagLoggingHook(logger: logger, level: .info, includesContext: true))
        _ = flags.value(\.newCheckout, for: EvaluationContext(targetingKey: "user-2", attributes: ["plan": "pro"]))
        let line = try #require(handler.entries.last)
        #expect(line.metadata[FlagLoggingHook.MetadataKey.targetingKey] == "user-2")
        #expect(line.metadata[FlagLoggingHook.MetadataKey.context] == .dictionary(["plan": "pro"]))
    }
}
