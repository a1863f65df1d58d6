import Foundation
import StowageFlags
import StowageTestSupport
import Testing

/// Flag definitions in flagd's format: targeting by context, percentage
/// rollouts, and what a bad definition does.
struct FlagTargetingTests {
    init() { ReportedErrors.install() }

    enum Plan: String, Storable, CaseIterable { case free, pro, enterprise }

    struct ShopFlags: FlagContainer {
        @Flag("Shows the new checkout flow") var newCheckout = false
        @Flag("Requests a client may make each second") var rateLimit = 100
        @Flag("The banner's text") var banner = "Welcome"
        @Flag("The plan new accounts get") var plan = Plan.free
    }

    static let tenantRule = #"""
        {"flags": {
            "new-checkout": {
                "state": "ENABLED",
                "variants": {"on": true, "off": false},
                "defaultVariant": "off",
                "targeting": {"if": [{"in": [{"var": "tenant"}, ["acme", "globex"]]}, "on", null]},
                "metadata": {"owner": "checkout-team"}
            },
            "rate-limit": {
                "state": "ENABLED",
                "variants": {"low": 10, "high": 1000},
                "defaultVariant": "low",
                "targeting": {"if": [{"sem_ver": [{"var": "appVersion"}, ">=", "2.1.0"]}, "high", "low"]}
            }
        },
        "metadata": {"flagSetId": "shop", "owner": "platform"}}
        """#

    private func pole() throws -> FlagPole<ShopFlags> {
        try FlagPole(ShopFlags(), overrides: InMemoryStore())
    }

    @Test func aRuleChoosesTheVariantForTheContext() throws {
        let flags = try pole()
        let result = try flags.update(with: Data(Self.tenantRule.utf8))
        #expect(result.rejected.isEmpty)
        let acme = EvaluationContext(targetingKey: "user-1", attributes: ["tenant": "acme"])
        let initech = EvaluationContext(targetingKey: "user-2", attributes: ["tenant": "initech"])
        #expect(flags.value(\.newCheckout, for: acme) == true)
        #expect(flags.value(\.newCheckout, for: initech) == false)
        #expect(flags.value(\.rateLimit, for: EvaluationContext(attributes: ["appVersion": "2.1.3"])) == 1000)
        #expect(flags.value(\.rateLimit, for: EvaluationContext(attributes: ["appVersion": "2.0.9"])) == 10)

        let matched = try flags.details(\.newCheckout, for: acme)
        #expect(matched.value && matched.variant == "on" && matched.reason == .targetingMatch && matched.errorCode == nil)
        #expect(matched.metadata == ["flagSetId": "shop", "owner": "checkout-team"])
        // The rule gives null for another tenant: the default variant, reason DEFAULT.
        let fallback = try flags.details(\.newCheckout, for: initech)
        #expect(!fallback.value && fallback.variant == "off" && fallback.reason == .default)
    }

    @Test func aReadWithoutAContextUsesTheTasksContext() async throws {
        let flags = try pole()
        try flags.update(with: Data(Self.tenantRule.utf8))
        #expect(!flags.newCheckout)
        EvaluationContext.$current.withValue(EvaluationContext(attributes: ["tenant": "globex"])) {
            #expect(flags.newCheckout)
            #expect(flags.state(forKey: "new-checkout")?.value == true)
        }
        await EvaluationContext.$current.withValue(EvaluationContext(attributes: ["tenant": "acme"])) {
            await Task.yield()
            let child = Task { flags.newCheckout }  // a child task inherits the context
            #expect(await child.value)
        }
        #expect(!flags.newCheckout)
    }

    @Test func anOverrideWinsForEveryContext() throws {
        let flags = try pole()
        try flags.update(with: Data(Self.tenantRule.utf8))
        try flags.override(\.newCheckout, with: false)
        let acme = EvaluationContext(attributes: ["tenant": "acme"])
        #expect(flags.value(\.newCheckout, for: acme) == false)
        let details = try flags.details(\.newCheckout, for: acme)
        #expect(!details.value && details.reason == .override && details.variant == nil)
        #expect(flags.state(forKey: "new-checkout")?.origin == .override)
        try flags.removeOverride(\.newCheckout)
        #expect(flags.value(\.newCheckout, for: acme) == true)
    }

    @Test func aPercentageRolloutIsStickyAndNearItsWeights() throws {
        let flags = try pole()
        try flags.update(
            with: Data(
                #"""
                {"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"fractional": [["on", 5], ["off", 95]]}}}}
                """#.utf8))
        var enabled = 0
        for user in 0..<10_000 {
            let context = EvaluationContext(targetingKey: "user-\(user)")
            let first = try flags.details(\.newCheckout, for: context)
            #expect(first.reason == .split)
            #expect(flags.value(\.newCheckout, for: context) == first.value)  // the same user, the same variant
            if first.value { enabled += 1 }
        }
        #expect((400...600).contains(enabled), "\(enabled) of 10,000 users in a 5% rollout")
        // Without a targeting key, fractional has nothing to bucket by: the default variant, as in flagd.
        let anonymous = try flags.details(\.newCheckout, for: EvaluationContext())
        #expect(anonymous.variant == "off" && anonymous.reason == .default)
    }

    @Test func aVariantOfTheWrongTypeIsRejectedAndTheFlagKeepsItsLastGoodDefinition() throws {
        let flags = try pole()
        try flags.update(with: Data(Self.tenantRule.utf8))
        let result = try flags.update(
            with: Data(
                #"""
                {"flags": {
                    "rate-limit": {"state": "ENABLED", "variants": {"low": 10, "many": "maybe"}, "defaultVariant": "low"},
                    "banner": {"state": "ENABLED", "variants": {"plain": "Hello"}, "defaultVariant": "plain"},
                    "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                        "targeting": {"if": [{"is_in": [1, 2]}, "on", "off"]}}
                }}
                """#.utf8))
        let wrongType = try #require(result.rejected.first { $0.key == "rate-limit" })
        #expect(wrongType.code == .typeMismatch)
        #expect(wrongType.message.contains(#"variant "many" is "maybe", not a valid Int"#), "\(wrongType.message)")
        let badRule = try #require(result.rejected.first { $0.key == "new-checkout" })
        #expect(badRule.message.contains("$.if[0]") && badRule.message.contains("is_in"), "\(badRule.message)")
        // The rest of the payload applies; the rejected flags keep what they had.
        #expect(flags.banner == "Hello")
        #expect(flags.value(\.rateLimit, for: EvaluationContext(attributes: ["appVersion": "3.0.0"])) == 1000)
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])))
        #expect(flags.configurations["rate-limit"]?.variants == ["low": 10, "high": 1000])
    }

    @Test func sharedEvaluatorsAreReferencedByName() throws {
        let flags = try pole()
        let result = try flags.update(
            with: Data(
                #"""
                {"$evaluators": {"staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
                 "flags": {
                    "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                        "targeting": {"if": [{"$ref": "staff"}, "on", "off"]}},
                    "banner": {"state": "ENABLED", "variants": {"staff": "Hi, colleague", "guest": "Welcome"}, "defaultVariant": "guest",
                        "targeting": {"if": [{"$ref": "contractors"}, "staff", "guest"]}}
                }}
                """#.utf8))
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["email": "ann@example.com"])))
        #expect(!flags.value(\.newCheckout, for: EvaluationContext(attributes: ["email": "bob@elsewhere.org"])))
        let missing = try #require(result.rejected.first { $0.key == "banner" })
        #expect(missing.message.contains(#"shared evaluator "contractors""#) && missing.message.contains("$.if[0]"), "\(missing.message)")
        #expect(flags.configurations["new-checkout"]?.targeting == ["if": [["ends_with": [["var": "email"], "@example.com"]], "on", "off"]])
    }

    @Test func disabledFlagsAndMissingDefaultVariantsReadTheCodesDefault() throws {
        let flags = try pole()
        try flags.update(with: Data(#"{"rate-limit": 5, "banner": "Hi"}"#.utf8))
        try flags.update(
            with: Data(
                #"""
                {"flags": {
                    "rate-limit": {"state": "DISABLED", "variants": {"low": 10}, "defaultVariant": "low"},
                    "banner": {"state": "ENABLED", "variants": {"hi": "Hi"}, "defaultVariant": null},
                    "plan": {"state": "ENABLED", "variants": {"pro": "pro"}, "defaultVariant": "pro"}
                }}
                """#.utf8))
        #expect(flags.rateLimit == 100 && flags.banner == "Welcome" && flags.plan == .pro)
        let disabled = try flags.details(\.rateLimit)
        #expect(disabled.value == 100 && disabled.reason == .disabled && disabled.variant == nil)
        let noDefault = try flags.details(\.banner)
        #expect(noDefault.value == "Welcome" && noDefault.reason == .default && noDefault.variant == nil)
        let fixed = try flags.details(\.plan)
        #expect(fixed.value == .pro && fixed.reason == .static && fixed.variant == "pro")
        // An enum flag refuses a variant that is none of its cases.
        let result = try flags.update(
            with: Data(#"{"flags": {"plan": {"state": "ENABLED", "variants": {"gold": "gold"}, "defaultVariant": "gold"}}}"#.utf8), mode: .patch)
        #expect(result.rejected.first?.key == "plan" && flags.plan == .pro)
    }

    @Test func aRuleThatChoosesNoVariantIsAnErrorWithTheCodesDefault() throws {
        let flags = try pole()
        try flags.update(
            with: Data(
                #"""
                {"flags": {"banner": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}, "defaultVariant": "a",
                    "targeting": {"cat": ["c", {"var": "suffix"}]}}}}
                """#.utf8))
        let details = try flags.details(\.banner, for: EvaluationContext(attributes: ["suffix": "x"]))
        #expect(details.value == "Welcome" && details.reason == .error && details.errorCode == .general)
        // The message names the flag and its variants, never what the rule gave: that may be a context's attribute.
        #expect(details.errorMessage == "flag banner: its targeting rule gave a name that is none of its variants (a, b).")
        #expect(flags.value(\.banner, for: EvaluationContext(attributes: ["suffix": "x"])) == "Welcome")
    }

    @Test func configurationsOfUndeclaredKeysAreListedAndEvaluatedByKey() throws {
        let flags = try pole()
        let result = try flags.update(
            with: Data(
                #"""
                {"flags": {"dark-mode": {"state": "ENABLED", "variants": {"true": true, "false": false}, "defaultVariant": "false",
                    "targeting": {"==": [{"var": "targetingKey"}, "ann"]}},
                  "mixed": {"state": "ENABLED", "variants": {"a": true, "b": "text"}, "defaultVariant": "a"}}}
                """#.utf8))
        #expect(result.rejected.map(\.key) == ["mixed"])
        #expect(flags.configurations.keys.sorted() == ["dark-mode"])
        // A rule giving true or false names the variant "true" or "false" (flagd's shorthand).
        let ann = flags.details(forKey: "dark-mode", for: EvaluationContext(targetingKey: "ann"))
        #expect(ann.value == true && ann.variant == "true" && ann.reason == .targetingMatch)
        let bob = flags.details(forKey: "dark-mode", for: EvaluationContext(targetingKey: "bob"))
        #expect(bob.value == false && bob.variant == "false")
        let unknown = flags.details(forKey: "no-such-flag")
        #expect(unknown.value == nil && unknown.reason == .error && unknown.errorCode == .flagNotFound)
        let declared = flags.details(forKey: "rate-limit")
        #expect(declared.value == 100 && declared.reason == .default)
    }

    @Test func plainValuesReplaceDefinitionsAndBack() throws {
        let flags = try pole()
        try flags.update(with: Data(Self.tenantRule.utf8))
        #expect(flags.state(forKey: "new-checkout")?.origin == .targeting)
        // A patch of plain values takes the named flag's definition away, and only its.
        try flags.update(with: Data(#"{"new-checkout": true}"#.utf8), mode: .patch)
        #expect(flags.newCheckout && flags.state(forKey: "new-checkout")?.origin == .remote)
        #expect(flags.configurations.keys.sorted() == ["rate-limit"])
        // A full state of plain values takes them all away.
        try flags.update(with: Data(#"{"rate-limit": 7}"#.utf8))
        #expect(flags.configurations.isEmpty && flags.rateLimit == 7 && !flags.newCheckout)
        #expect(try flags.details(\.rateLimit).reason == .static)
    }

    @Test func aRuleChangedThroughOneStoreIsEvaluatedByEveryPoleOnIt() async throws {
        let shared = InMemoryStore()
        let writer = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: shared)
        let reader = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: shared)
        let acme = EvaluationContext(attributes: ["tenant": "acme"])
        var changes = reader.changes.makeAsyncIterator()
        try writer.update(with: Data(Self.tenantRule.utf8))
        #expect(reader.value(\.newCheckout, for: acme))
        // Only the rule changes (the default variant's value stays false): observers still hear of it.
        try writer.update(
            with: Data(Self.tenantRule.replacingOccurrences(of: #"["acme", "globex"]"#, with: #"["globex"]"#).utf8))
        #expect(!reader.value(\.newCheckout, for: acme))
        var sawRuleChange = false
        while let state = await changes.next() {
            if state.key == "new-checkout", state.configuration?.targeting?.description.contains("acme") == false {
                sawRuleChange = true
                break
            }
        }
        #expect(sawRuleChange)
    }

    @Test func aBadDefinitionWrittenStraightIntoTheStoreIsReportedAndTheLastGoodOneKept() throws {
        let remote = InMemoryStore()
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: remote)
        try flags.update(with: Data(Self.tenantRule.utf8))
        // A hand edit of the stored configurations, as psql might make on a fleet's table.
        let edited: StoredValue = [
            "flags": [
                "new-checkout": ["state": "ENABLED", "variants": ["on": true, "off": false], "defaultVariant": "off", "targeting": ["bogus": [1]]],
                "banner": ["state": "ENABLED", "variants": ["x": "X"], "defaultVariant": "x", "targeting": ["nope": []]],
            ]
        ]
        try remote.set(edited, forKey: "$flag-configurations")
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])))
        #expect(ReportedErrors.forKey("new-checkout").contains { $0.message.contains("bogus") })
        // A flag with no earlier good definition evaluates to an error naming the problem.
        let banner = try flags.details(\.banner)
        #expect(banner.reason == .error && banner.errorCode == .parseError && banner.errorMessage?.contains("nope") == true)
        #expect(banner.value == "Welcome")
    }

    struct ColourFlags: FlagContainer {
        @Flag("The header's colour") var headerColor = "#000000"
        @Flag("The same, seeded") var customSeededHeaderColor = "#000000"
        @Flag("The footer's colour") var footerColor = "#000000"
    }

    static let colours: StoredValue = ["red": "#FF0000", "blue": "#0000FF", "green": "#00FF00", "yellow": "#FFFF00"]

    private func colourPayload(_ rules: [String: StoredValue]) -> [String: StoredValue] {
        ["flags": .dictionary(rules.mapValues { ["state": "ENABLED", "variants": Self.colours, "defaultVariant": "red", "targeting": $0] })]
    }

    /// flagd v0.16.1's Go evaluator buckets text by its UTF-8 bytes, and
    /// without a bucketing value the flag's key joined to the targeting key.
    /// The expected variants are those of flagd's own tests at that version
    /// (core/pkg/evaluator/fractional_test.go), not computed here.
    @Test func flagdGoBucketingGivesWhatFlagdsOwnTestsExpect() throws {
        let flags = try FlagPole(ColourFlags(), overrides: InMemoryStore(), options: FlagPole.Options(fractionalBucketing: .flagdGo))
        let quarters: [StoredValue] = [["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]
        try flags.update(
            with: colourPayload([
                "header-color": ["fractional": .array([["cat": [["var": "$flagd.flagKey"], ["var": "email"]]]] + quarters)],
                "custom-seeded-header-color": ["fractional": .array([["cat": ["my-seed", ["var": "email"]]]] + quarters)],
                "footer-color": ["fractional": .array([["var": "email"]] + quarters)],
            ]))
        func variant(_ key: String, _ email: String) -> String? {
            flags.details(forKey: key, for: EvaluationContext(attributes: ["email": .string(email)])).variant
        }
        // flagd's tests name the flag headerColor; the key joined in by cat is the flag's key here.
        let renamed = try FlagPole(
            ColourFlagsCamel(), keyStrategy: StorageKeyStrategy(caseStyle: .asWritten), overrides: InMemoryStore(),
            options: FlagPole.Options(fractionalBucketing: .flagdGo))
        try renamed.update(
            with: colourPayload(["headerColor": ["fractional": .array([["cat": [["var": "$flagd.flagKey"], ["var": "email"]]]] + quarters)]]))
        func camel(_ email: String) -> String? {
            renamed.details(forKey: "headerColor", for: EvaluationContext(attributes: ["email": .string(email)])).variant
        }
        #expect([camel("rachel@faas.com"), camel("monica@faas.com"), camel("joey@faas.com"), camel("ross@faas.com")] == ["blue", "yellow", "red", "blue"])
        #expect(
            ["rachel", "monica", "joey", "ross"].map { variant("custom-seeded-header-color", "\($0)@faas.com") } == ["green", "red", "blue", "green"])
        #expect(variant("footer-color", "ross@faas.com") == "red")

        // Without a bucketing value, and with one the context lacks: the flag's key and the targeting key.
        try renamed.update(
            with: colourPayload([
                "headerColor": ["fractional": [["blue", 50], ["green", 50]]],
                "customSeededHeaderColor": ["fractional": [["var": "email"], ["red", 50], ["blue", 50]]],
            ]))
        let foo = EvaluationContext(targetingKey: "foo@foo.com")
        #expect(renamed.details(forKey: "headerColor", for: foo).variant == "green")
        // (flagd's test names this flag headerColor too; the key joined in is the one evaluated.)
        let lacking = try FlagPole(
            ColourFlagsCamel(), keyStrategy: StorageKeyStrategy(caseStyle: .asWritten), overrides: InMemoryStore(),
            options: FlagPole.Options(fractionalBucketing: .flagdGo))
        try lacking.update(with: colourPayload(["headerColor": ["fractional": [["var": "email"], ["red", 50], ["blue", 50]]]]))
        #expect(lacking.details(forKey: "headerColor", for: foo).variant == "blue")

        // openfeature-flagd-core 2.0.0, the default, gives no variant for a bucketing value the context lacks.
        let core = try FlagPole(ColourFlagsCamel(), keyStrategy: StorageKeyStrategy(caseStyle: .asWritten), overrides: InMemoryStore())
        try core.update(with: colourPayload(["headerColor": ["fractional": [["var": "email"], ["red", 50], ["blue", 50]]]]))
        let fallback = core.details(forKey: "headerColor", for: foo)
        #expect(fallback.variant == "red" && fallback.reason == .default)
    }

    struct ColourFlagsCamel: FlagContainer {
        @Flag("The header's colour") var headerColor = "#000000"
        @Flag("The same, seeded") var customSeededHeaderColor = "#000000"
    }

    struct OlderShopFlags: FlagContainer {
        @Flag("Requests a client may make each second") var rateLimit = 100
    }

    /// A rolling deploy: a server that does not declare `banner` yet applies
    /// its definition (and so writes no value for it); a server that does
    /// declare it reads what its configuration serves, as `details` says.
    @Test func aFlagConfiguredByAProgramThatDoesNotDeclareItReadsItsConfiguration() throws {
        let shared = InMemoryStore()
        let older = try FlagPole(OlderShopFlags(), overrides: InMemoryStore(), remote: shared)
        try older.update(with: Data(#"{"flags": {"banner": {"state": "ENABLED", "variants": {"hi": "Hi"}, "defaultVariant": "hi"}}}"#.utf8))
        let newer = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: shared)
        #expect(newer.banner == "Hi")
        #expect(try newer.details(\.banner).value == "Hi" && newer.state(forKey: "banner")?.value == "Hi")
    }

    /// An operator edits only the stored configurations (as `psql` would on a
    /// fleet's table): the default variant, then the state. Reads follow.
    @Test func aHandEditOfAConfigurationWithoutARuleIsWhatReadsGive() throws {
        let remote = InMemoryStore()
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: remote)
        try flags.update(
            with: Data(#"{"flags": {"rate-limit": {"state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "low"}}}"#.utf8))
        #expect(flags.rateLimit == 10)
        func edit(_ definition: StoredValue) throws {
            try remote.set(["flags": ["rate-limit": definition]] as StoredValue, forKey: FlagPole<ShopFlags>.configurationsKey)
        }
        try edit(["state": "ENABLED", "variants": ["low": 10, "high": 1000], "defaultVariant": "high"])
        #expect(flags.rateLimit == 1000 && flags.state(forKey: "rate-limit")?.value == 1000)
        try edit(["state": "DISABLED", "variants": ["low": 10, "high": 1000], "defaultVariant": "high"])
        #expect(flags.rateLimit == 100 && flags.state(forKey: "rate-limit")?.origin == .default)
        try edit(["state": "ENABLED", "variants": ["low": 10, "high": 1000], "defaultVariant": "low"])
        #expect(flags.rateLimit == 10)
    }

    /// A remote JSON file with a nested layout lists an object's leaves, not
    /// the object: the update used to expect the configurations absent, fail
    /// its compare-and-swap and start again for ever on the second payload.
    @Test func updatesThroughANestedRemoteFileComplete() throws {
        let directory = TemporaryDirectory()
        let remote = JSONFileStore(url: directory.url("remote.json"), options: .init(keyLayout: .nested(separator: ".")))
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: remote)
        try flags.update(with: Data(Self.tenantRule.utf8))
        try flags.update(with: Data(Self.tenantRule.replacingOccurrences(of: "acme", with: "initech").utf8))
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "initech"])))
        try flags.update(with: Data(#"{"rate-limit": 7}"#.utf8))
        #expect(flags.rateLimit == 7 && flags.configurations.isEmpty)
    }

    /// A full-state payload of values that rejects a flag's entry leaves
    /// that flag as it was: its value and its rule.
    @Test func aRejectedEntryOfAPayloadOfValuesKeepsTheFlagsRule() throws {
        let flags = try pole()
        try flags.update(with: Data(Self.tenantRule.utf8))
        let result = try flags.update(with: Data(#"{"new-checkout": "oops", "banner": "Hi"}"#.utf8))
        #expect(result.rejected.map(\.key) == ["new-checkout"])
        #expect(flags.configurations.keys.sorted() == ["new-checkout"])
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])))
        #expect(flags.banner == "Hi" && flags.rateLimit == 100)
    }

    /// Stored configurations without a `flags` object (a typo in a hand
    /// edit) are reported, and every flag keeps its configuration.
    @Test func storedConfigurationsWithoutFlagsKeepEveryFlagsConfiguration() throws {
        let remote = InMemoryStore()
        let flags = try FlagPole(ShopFlags(), overrides: InMemoryStore(), remote: remote)
        try flags.update(with: Data(Self.tenantRule.utf8))
        try remote.set(["flag": ["new-checkout": ["state": "DISABLED"]]] as StoredValue, forKey: FlagPole<ShopFlags>.configurationsKey)
        #expect(flags.configurations.keys.sorted() == ["new-checkout", "rate-limit"])
        #expect(flags.value(\.newCheckout, for: EvaluationContext(attributes: ["tenant": "acme"])))
        #expect(ReportedErrors.mentioning("not an object with a \"flags\" object").isEmpty == false)
    }

    /// Each `$ref` copies its evaluator, so a small payload could grow a rule
    /// without bound; past 100,000 values the flag is left out.
    @Test func sharedEvaluatorsCanNotGrowARuleWithoutBound() throws {
        let flags = try pole()
        let evaluator = StoredValue.array((0..<1_000).map { .signedInteger(Int64($0)) })
        let rule = StoredValue.dictionary(["or": .array(Array(repeating: ["$ref": "big"], count: 200))])
        let result = try flags.update(with: [
            "$evaluators": ["big": ["in": [1, evaluator]]],
            "flags": ["new-checkout": ["state": "ENABLED", "variants": ["true": true, "false": false], "defaultVariant": "false", "targeting": rule]],
        ])
        #expect(result.rejected.first?.message.contains("more than 100000 values") == true)
        #expect(flags.configurations.isEmpty)
    }

    @Test func aPoleThatDeclaresNothingServesDefinitionsByKey() throws {
        let flags = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore())
        #expect(flags.definitions.isEmpty)
        let result = try flags.update(with: Data(Self.tenantRule.utf8))
        #expect(result.rejected.isEmpty)
        #expect(flags.configurations.keys.sorted() == ["new-checkout", "rate-limit"])
        let acme = flags.details(forKey: "new-checkout", for: EvaluationContext(targetingKey: "user-1", attributes: ["tenant": "acme"]))
        #expect(acme.value == true && acme.variant == "on" && acme.reason == .targetingMatch)
        let old = flags.details(forKey: "rate-limit", for: EvaluationContext(attributes: ["appVersion": "1.0.0"]))
        #expect(old.value == 10 && old.variant == "low")
        #expect(flags.details(forKey: "missing").errorCode == .flagNotFound)
    }
}
