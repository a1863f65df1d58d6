import Benchmark
import Foundation
import StowageFlags

/// Group 13, targeting (13p–13x): flags whose definitions in flagd's format
/// have rules, evaluated for a context, each beside hand-written Swift doing
/// the same work on the same `EvaluationContext`, and a read without a
/// context beside a wrapper read (13b). The context is flagd-evaluator's
/// "small context" (BENCHMARKS.md): a targeting key and four attributes.
func registerFlagTargetingBenchmarks() {
    let context = EvaluationContext(
        targetingKey: "user-123", attributes: ["tier": "premium", "role": "admin", "region": "us-east", "score": 85])
    let poleState = SetupState<FlagPole<AppFlags>>()
    func setUp() throws {
        let flags = try FlagPole(AppFlags(), overrides: InMemoryStore(), remote: InMemoryStore())
        let result = try flags.update(with: Data(targetingPayload.utf8))
        precondition(result.rejected.isEmpty, "\(result.rejected)")
        precondition(flags.newCheckout == false && flags.value(\.newCheckout, for: context))
        precondition(flags.theme == "light" && flags.value(\.theme, for: context) == "dark")
        precondition(flags.search.vectorIndex && [100, 500].contains(flags.value(\.rateLimit, for: context)))
        let split = try flags.details(\.rateLimit, for: context)
        precondition(split.reason == .split)
        poleState.value = flags
    }

    Benchmark(
        "13p Flags targeting - Stowage flags.search.vectorIndex, a definition without a rule (STATIC)",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(flags.search.vectorIndex) }
        },
        setup: setUp
    )

    Benchmark(
        "13q Flags targeting - Stowage flags.newCheckout, a rule of one comparison, for the task's context",
        closure: { benchmark in
            let flags = poleState.unwrapped
            EvaluationContext.$current.withValue(context) {
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(flags.newCheckout) }
                benchmark.stopMeasurement()
            }
        },
        setup: setUp
    )

    Benchmark("13r Flags targeting - baseline hand-written if on the context (one comparison)") { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(HandWrittenRules.newCheckout(opaque(context))) }
    }

    Benchmark(
        "13s Flags targeting - Stowage flags.value(\\.rateLimit, for:), a fractional split of two",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(flags.value(\.rateLimit, for: context)) }
        },
        setup: setUp
    )

    Benchmark("13t Flags targeting - baseline hand-written split: MurmurHash3 of flag key and targeting key") { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(HandWrittenRules.rateLimit(opaque(context))) }
    }

    Benchmark(
        "13u Flags targeting - Stowage flags.value(\\.theme, for:), a rule of 10 conditions",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(flags.value(\.theme, for: context)) }
        },
        setup: setUp
    )

    Benchmark("13v Flags targeting - baseline hand-written 10 conditions on the context") { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(HandWrittenRules.theme(opaque(context))) }
    }

    let setState = SetupState<FlagPole<NoDeclaredFlags>>()
    Benchmark(
        "13w Flags targeting, 1,000 flags - Stowage details(forKey:) of every flag of a 1,000-flag set for one context",
        configuration: targetingSweepConfiguration,
        closure: { benchmark in
            let flags = setState.unwrapped
            let keys = flags.configurations.keys.sorted()
            precondition(keys.count == 1_000)
            benchmark.startMeasurement()
            for key in keys { blackHole(flags.details(forKey: key, for: context)) }
        },
        setup: {
            let flags = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore())
            let result = try flags.update(with: ThousandDefinitions.payload())
            precondition(result.rejected.isEmpty && flags.configurations.count == 1_000)
            setState.value = flags
        }
    )

    Benchmark(
        "13x Flags targeting - Stowage flags.details(\\.newCheckout, for:), the same rule as 13q with variant and reason",
        closure: { benchmark in
            let flags = poleState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try flags.details(\.newCheckout, for: context)) }
        },
        setup: setUp
    )
}

/// `value`, hidden from the optimiser, so that a baseline's work on a
/// constant context is done on every iteration rather than hoisted out of
/// the loop. It costs a call, a nanosecond or two, on the baseline's side only.
@_optimize(none)
func opaque<Value>(_ value: Value) -> Value { value }

/// One sweep of 1,000 evaluations per sample.
private var targetingSweepConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
        maxDuration: .seconds(3), maxIterations: 1_000)
}

/// A container with no flags: a service that evaluates definitions it only receives.
struct NoDeclaredFlags: FlagContainer {}

/// The definitions of 13p–13x, for `AppFlags`: a static `search.vector-index`;
/// `new-checkout` on for one tier (flagd-evaluator's simple targeting flag);
/// `rate-limit` split 50/50; `theme` from 10 conditions.
let targetingPayload = #"""
    {"flags": {
      "search.vector-index": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
      "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
        "targeting": {"if": [{"==": [{"var": "tier"}, "premium"]}, "on", "off"]}},
      "rate-limit": {"state": "ENABLED", "variants": {"low": 100, "high": 500}, "defaultVariant": "low",
        "targeting": {"fractional": [["low", 50], ["high", 50]]}},
      "theme": {"state": "ENABLED", "variants": {"light": "light", "dark": "dark"}, "defaultVariant": "light",
        "targeting": {"if": [{"and": [
          {"==": [{"var": "tier"}, "premium"]}, {"==": [{"var": "role"}, "admin"]}, {"==": [{"var": "region"}, "us-east"]},
          {">": [{"var": "score"}, 50]}, {"<": [{"var": "score"}, 100]}, {"!=": [{"var": "tier"}, "free"]},
          {"!=": [{"var": "role"}, "guest"]}, {"starts_with": [{"var": "region"}, "us-"]}, {">=": [{"var": "score"}, 85]},
          {"==": [{"var": "targetingKey"}, "user-123"]}
        ]}, "dark", "light"]}}
    }}
    """#

/// The same decisions as `targetingPayload`'s rules, written in Swift.
enum HandWrittenRules {
    static func newCheckout(_ context: EvaluationContext) -> Bool {
        context.attributes["tier"] == "premium"
    }

    static func theme(_ context: EvaluationContext) -> String {
        let attributes = context.attributes
        guard case .signedInteger(let score)? = attributes["score"], case .string(let region)? = attributes["region"] else { return "light" }
        let matches =
            attributes["tier"] == "premium" && attributes["role"] == "admin" && region == "us-east" && score > 50 && score < 100
            && attributes["tier"] != "free" && attributes["role"] != "guest" && region.hasPrefix("us-") && score >= 85
            && context.targetingKey == "user-123"
        return matches ? "dark" : "light"
    }

    /// flagd's bucketing, written out: MurmurHash3 (x86, 32-bit, seed 0) of the
    /// flag's key joined to the targeting key, scaled to the weights.
    static func rateLimit(_ context: EvaluationContext) -> Int {
        guard let targetingKey = context.targetingKey else { return 100 }
        let hash = murmurHash3(Array(("rate-limit" + targetingKey).utf8))
        return (UInt64(hash) * 100) >> 32 < 50 ? 100 : 500
    }

    static func murmurHash3(_ bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 0
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var index = 0
        while index + 4 <= bytes.count {
            var k = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
            k = (k &* c1).rotatedLeft(15) &* c2
            hash = (hash ^ k).rotatedLeft(13) &* 5 &+ 0xe654_6b64
            index += 4
        }
        var tail: UInt32 = 0
        for offset in stride(from: bytes.count - index - 1, through: 0, by: -1) { tail = tail << 8 | UInt32(bytes[index + offset]) }
        if bytes.count > index { hash ^= (tail &* c1).rotatedLeft(15) &* c2 }
        hash ^= UInt32(truncatingIfNeeded: bytes.count)
        hash ^= hash >> 16
        hash = hash &* 0x85eb_ca6b
        hash ^= hash >> 13
        hash = hash &* 0xc2b2_ae35
        return hash ^ (hash >> 16)
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { self << count | self >> (32 - count) }
}

/// 1,000 definitions generated as flagd-evaluator's BENCHMARKS.md recipe
/// says (seeded): 60% static, 25% one `==` on an attribute, 15% nested
/// `and`/`or` of 3 to 5 conditions.
enum ThousandDefinitions {
    static func payload() -> [String: StoredValue] {
        var generator = SplitMix64(seed: 42)
        var flags: [String: StoredValue] = [:]
        let attributes = ["tier", "role", "region", "score"]
        for index in 0..<1_000 {
            let roll = Double(generator.next() % 1_000) / 1_000
            var flag: [String: StoredValue] = ["state": "ENABLED", "variants": ["on": true, "off": false], "defaultVariant": "off"]
            if roll >= 0.60 && roll < 0.85 {
                let attribute = attributes[Int(generator.next() % 3)]
                flag["targeting"] = ["if": [["==": [["var": .string(attribute)], "premium"]], "on", "off"]]
            } else if roll >= 0.85 {
                let count = 3 + Int(generator.next() % 3)
                let conditions: [StoredValue] = (0..<count).map { position in
                    position % 2 == 0 ? [">": [["var": "score"], .signedInteger(Int64(generator.next() % 100))]] : ["==": [["var": "tier"], "premium"]]
                }
                flag["targeting"] = [
                    "if": [["or": [["and": .array(Array(conditions.prefix(2)))], ["and": .array(Array(conditions.dropFirst(2)))]]], "on", "off"]
                ]
            }
            flags["flag_\(index)"] = .dictionary(flag)
        }
        return ["flags": .dictionary(flags)]
    }
}

/// A small seeded generator, so every run evaluates the same set.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49eb_133b_11eb
        return z ^ (z >> 31)
    }
}
