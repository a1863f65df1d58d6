#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageFlags
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A container that declares nothing: the cases' flags are only configured, as a service that serves flag definitions alone has them.
struct NoDeclaredFlags: FlagContainer {}

/// Evaluates each case of Scripts/flagd-definitions-differential.py (flag definitions, a flag's
/// key, a context) with a flag pole, and compares value, variant, reason, error code and
/// metadata with what flagd's evaluator resolved. `SPLIT`, which flagd does not give, counts as
/// its `TARGETING_MATCH`.
func checkDefinitions(at path: String) throws -> Never {
    guard case .array(let cases) = try load(path) else {
        print("\(path) is not a list of cases")
        exit(1)
    }
    var mismatches: [String] = []
    var pole: FlagPole<NoDeclaredFlags>?
    var loaded: StoredValue?
    var fromPages = 0
    var reasons: [String: Int] = [:]
    for case .dictionary(let entry) in cases {
        guard case .dictionary(let payload)? = entry["definitions"], case .string(let key)? = entry["flag"],
            case .dictionary(let flagd)? = entry["flagd"], case .dictionary(var attributes)? = entry["context"]
        else { continue }
        if entry["page"] != nil { fromPages += 1 }
        if loaded != entry["definitions"] {
            pole = nil
            let fresh = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore())
            let result = try fresh.update(with: payload)
            if !result.rejected.isEmpty {
                mismatches.append("\(text(entry["definitions"])): Stowage left out \(result.rejected.map(\.message)), flagd took it")
            }
            pole = fresh
            loaded = entry["definitions"]
        }
        guard let pole else { continue }
        var targetingKey: String?
        if case .string(let given)? = attributes.removeValue(forKey: "targetingKey") { targetingKey = given }
        let ours = pole.details(forKey: key, for: EvaluationContext(targetingKey: targetingKey, attributes: attributes))
        let reason = ours.reason == .split ? "TARGETING_MATCH" : ours.reason.rawValue
        reasons[ours.reason.rawValue, default: 0] += 1
        let expectedValue = flagd["value"].flatMap { $0 == .null ? nil : LogicValue($0) }
        let agrees =
            reason == stringOrNil(flagd["reason"])
            && ours.variant == stringOrNil(flagd["variant"])
            && ours.errorCode?.rawValue == stringOrNil(flagd["errorCode"])
            && (ours.reason == .error || sameOptional(ours.value.map(LogicValue.init), expectedValue))
            && (ours.reason == .error || same(LogicValue(.dictionary(ours.metadata)), LogicValue(flagd["metadata"] ?? [:])))
        if !agrees {
            let ourOutcome = "\(reason) \(ours.variant ?? "-") \(text(ours.value ?? .null)) \(ours.errorCode?.rawValue ?? "") \(ours.errorMessage ?? "")"
            mismatches.append("\(key) of \(text(entry["definitions"])) for \(text(entry["context"])): Stowage \(ourOutcome), flagd \(text(entry["flagd"]))")
        }
    }
    for line in mismatches.prefix(25) { print("DIFFERS " + line) }
    let counts = reasons.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    print(
        "Definitions against flagd's evaluator: \(cases.count - mismatches.count) of \(cases.count) evaluations agree (\(fromPages) of them of flagd's reference pages' examples; \(counts))."
    )
    exit(mismatches.isEmpty ? 0 : 1)
}

private func stringOrNil(_ value: StoredValue?) -> String? {
    if case .string(let text)? = value { return text }
    return nil
}

private func sameOptional(_ a: LogicValue?, _ b: LogicValue?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let a?, let b?): same(a, b)
    default: false
    }
}
