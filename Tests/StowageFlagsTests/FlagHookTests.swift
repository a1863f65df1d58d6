import Foundation
import StowageFlags
import StowageLocking
import StowageTestSupport
import Testing

/// Hooks around every evaluation, as OpenFeature runs them, and tracking.
struct FlagHookTests {
    init() { ReportedErrors.install() }

    struct HookedFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
        @Flag("Requests a client may make each second") var hookedRateLimit = 100
    }

    static let rule = #"""
        {"flags": {"new-checkout": {
            "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"==": [{"var": "tenant"}, "acme"]}, "on", null]}
        },
        "broken": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "a", "targeting": {"var": "pick"}}}}
        """#

    /// Records every stage it runs, with its name.
    final class Recorder: FlagHook, @unchecked Sendable {
        let name: String
        let log: Locked<[String]>
        let addedContext: EvaluationContext?
        let failsBefore: Bool

        init(_ name: String, log: Locked<[String]>, adding addedContext: EvaluationContext? = nil, failsBefore: Bool = false) {
            self.name = name
            self.log = log
            self.addedContext = addedContext
            self.failsBefore = failsBefore
        }

        struct Failure: Error {}

        func before(_ hook: FlagHookContext) throws -> EvaluationContext? {
            log.withLock { $0.append("\(name).before \(hook.flagKey)") }
            if failsBefore { throw Failure() }
            return addedContext
        }
        func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) throws {
            log.withLock { $0.append("\(name).after \(evaluation.value.map { "\($0)" } ?? "nil") \(evaluation.reason.rawValue)") }
        }
        func error(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
            log.withLock { $0.append("\(name).error \(evaluation.errorCode?.rawValue ?? "")") }
        }
        func finally(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) {
            log.withLock { $0.append("\(name).finally") }
        }
    }

    private func pole() throws -> FlagPole<HookedFlags> {
        let flags = try FlagPole(HookedFlags(), overrides: InMemoryStore())
        try flags.update(with: Data(Self.rule.utf8))
        return flags
    }

    @Test func everyWayOfEvaluatingRunsThePolesHooksInOpenFeaturesOrder() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        flags.addHook(Recorder("first", log: log))
        flags.addHook(Recorder("second", log: log))
        let acme = EvaluationContext(targetingKey: "u", attributes: ["tenant": "acme"])

        #expect(flags.value(\.newCheckout, for: acme) == true)
        #expect(
            log.withLock { $0 } == [
                "first.before new-checkout", "second.before new-checkout", "second.after true TARGETING_MATCH", "first.after true TARGETING_MATCH",
                "second.finally", "first.finally",
            ])
        log.withLock { $0 = [] }
        // A flag without a rule runs the hooks too, once any is registered.
        #expect(flags.hookedRateLimit == 100)
        #expect(log.withLock { $0.first } == "first.before hooked-rate-limit")
        #expect(log.withLock { $0 }.contains("first.after 100 DEFAULT"))
        log.withLock { $0 = [] }
        _ = try flags.details(\.newCheckout, for: acme)
        _ = flags.details(forKey: "new-checkout", for: acme)
        #expect(log.withLock { $0.filter { $0.hasPrefix("first.before") } }.count == 2)
    }

    @Test func anOverrideReachesTheHooksAsOneAndKeepsItsValue() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        flags.addHook(Recorder("hook", log: log))
        try flags.override(\.newCheckout, with: true)
        #expect(flags.newCheckout == true)
        #expect(log.withLock { $0 }.contains("hook.after true OVERRIDE"))
    }

    @Test func aHookAddsToTheContextBeforeTheRuleReadsIt() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        flags.addHook(Recorder("tenant", log: log, adding: EvaluationContext(attributes: ["tenant": "acme"])))
        #expect(flags.value(\.newCheckout, for: EvaluationContext(targetingKey: "u")) == true)
        #expect(try flags.details(\.newCheckout, for: EvaluationContext()).variant == "on")
    }

    @Test func aHookThatThrowsIsReportedAndChangesNothing() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        flags.addHook(Recorder("failing", log: log, failsBefore: true))
        flags.addHook(Recorder("other", log: log))
        let acme = EvaluationContext(attributes: ["tenant": "acme"])
        #expect(flags.value(\.newCheckout, for: acme) == true)
        #expect(log.withLock { $0 }.contains("other.after true TARGETING_MATCH"))
        let reported = ReportedErrors.forKey("new-checkout").filter { $0.code == .hookFailed }
        #expect(reported.contains { $0.message.contains("Recorder failed in its before stage") })
    }

    @Test func aFailedEvaluationRunsTheErrorStageNotTheAfterStage() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        flags.addHook(Recorder("hook", log: log))
        let details = flags.details(forKey: "broken", for: EvaluationContext(attributes: ["pick": "zzz"]))
        #expect(details.reason == .error)
        #expect(log.withLock { $0 } == ["hook.before broken", "hook.error GENERAL", "hook.finally"])
    }

    @Test func aCancelledHookRunsNoMoreAndReadsGoBackToTheirOwnPath() throws {
        let flags = try pole()
        let log = Locked<[String]>([])
        let registration = flags.addHook(Recorder("hook", log: log))
        _ = flags.hookedRateLimit
        #expect(log.withLock { $0.count } == 3)
        registration.cancel()
        registration.cancel()
        _ = flags.hookedRateLimit
        _ = flags.details(forKey: "new-checkout")
        #expect(log.withLock { $0.count } == 3)
        try flags.override(\.hookedRateLimit, with: 5)
        #expect(flags.hookedRateLimit == 5)
    }

    /// Declared by this test alone, so that the global hook can tell its evaluations from other tests'.
    struct GloballyHookedFlags: FlagContainer {
        @Flag("A flag only the global hook test reads") var globallyHooked = false
    }

    @Test func globalHooksRunBeforeThePolesAndReachEveryPole() throws {
        let flags = try FlagPole(GloballyHookedFlags(), overrides: InMemoryStore())
        let log = Locked<[String]>([])
        let pole = flags.addHook(Recorder("pole", log: log))
        /// Other tests evaluate meanwhile; this one keeps only its own flag's stages.
        struct OnlyOurs: FlagHook {
            let recorder: Recorder
            func before(_ hook: FlagHookContext) throws -> EvaluationContext? {
                hook.poleName == "GloballyHookedFlags" ? try recorder.before(hook) : nil
            }
            func after(_ hook: FlagHookContext, evaluation: FlagEvaluation<StoredValue?>) throws {
                if hook.poleName == "GloballyHookedFlags" { try recorder.after(hook, evaluation: evaluation) }
            }
        }
        let global = FlagHooks.add(OnlyOurs(recorder: Recorder("global", log: log)))
        defer {
            global.cancel()
            pole.cancel()
        }
        // A plain read, which takes its own path until a hook, here a global one, is registered.
        #expect(flags.globallyHooked == false)
        #expect(
            log.withLock { $0 } == [
                "global.before globally-hooked", "pole.before globally-hooked", "pole.after false DEFAULT", "global.after false DEFAULT", "pole.finally",
            ])
    }

    @Test func trackedEventsReachTheGlobalTrackersAndThePoles() throws {
        let flags = try pole()
        let events = Locked<[String]>([])
        let global = FlagHooks.addTracker { event in
            if event.poleName == "HookedFlags" { events.withLock { $0.append("global \(event.name) \(event.value ?? 0)") } }
        }
        defer { global.cancel() }
        flags.addTracker { event in
            events.withLock { $0.append("pole \(event.name) \(event.context.targetingKey ?? "") \(event.attributes)") }
        }
        flags.track("checkout-completed", context: EvaluationContext(targetingKey: "user-7"), value: 42.5, attributes: ["items": 3])
        #expect(events.withLock { $0 } == ["global checkout-completed 42.5", #"pole checkout-completed user-7 ["items": 3]"#])
    }
}
