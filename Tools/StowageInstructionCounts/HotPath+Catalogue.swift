import StowageFlags
import StowageInMemory
import StowageLocking

extension HotPath {
    /// Every path the guard counts, each set up as its benchmark is
    /// (Benchmarks/Benchmarks/StowageBenchmarks, numbers in brackets).
    static let all: [HotPath] = [
        HotPath(
            name: "baseline-locked-dictionary-read",
            summary: "for scale: an Int read from a [String: Int] behind Stowage's Locked, by hand (as 3d)",
            expected: 41
        ) {
            let dictionary = Locked(["launchCount": 41])
            return { dictionary.withLock { $0["launchCount"] ?? 0 } }
        },
        HotPath(
            name: "wrapper-read-int",
            summary: "settings.launchCount, an @InMemoryStorage Int on the default store (1a)",
            expected: 41
        ) {
            let settings = Settings()
            settings.launchCount = 41
            return { settings.launchCount }
        },
        HotPath(
            name: "wrapper-write-int",
            summary: "settings.launchCount = 41, the same wrapper written, no observers (2a)",
            expected: 0
        ) {
            let settings = Settings()
            return {
                settings.launchCount = 41
                return 0
            }
        },
        HotPath(
            name: "values-read-string",
            summary: "store.values.userName as String?, an InMemoryStore key with a live reference (3e)",
            expected: 3
        ) {
            let store: InMemoryStore = ["userName": "Ada"]
            let live = store.reference(forKey: "userName", as: String.self)
            _ = live.value
            return {
                withExtendedLifetime(live) { (store.values.userName as String?)?.utf8.count ?? 0 }
            }
        },
        HotPath(
            name: "reference-lookup-live",
            summary: "store.reference(forKey:as:) of an Int key whose reference is alive (3c)",
            expected: 1
        ) {
            let store: InMemoryStore = ["launchCount": 41]
            let live = store.reference(forKey: "launchCount", as: Int.self)
            return {
                store.reference(forKey: "launchCount", as: Int.self) === live ? 1 : 0
            }
        },
        HotPath(
            name: "flag-read-bool",
            summary: "flags.newCheckout, a Bool flag of a FlagPole holding a remote value (13a)",
            expected: 1
        ) {
            let flags = try FlagPole(AppFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
            _ = try flags.update(with: Array(#"{"new-checkout": true, "rate-limit": 250}"#.utf8))
            return { flags.newCheckout ? 1 : 0 }
        },
        HotPath(
            name: "flag-evaluate-targeted",
            summary: "flags.value(\\.newCheckout, for: context), a Bool flag whose targeting rule reads one attribute, with no hook registered",
            expected: 1
        ) {
            let flags = try FlagPole(AppFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
            _ = try flags.update(
                with: Array(
                    #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}}}}"#
                        .utf8))
            let pro = EvaluationContext(targetingKey: "user-1", attributes: ["plan": "pro"])
            return { flags.value(\.newCheckout, for: pro) ? 1 : 0 }
        },
    ]
}
