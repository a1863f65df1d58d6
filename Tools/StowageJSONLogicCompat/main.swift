#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageFlags
import StowageJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Runs StowageFlags' JsonLogic evaluator over json-logic/compat-tables' suites, in the folder
// named as the first argument (the `suites` folder, with its index.json). `--oracle FILE` gives
// what flagd's own evaluator (PyPI's openfeature-flagd-core) makes of each case, as
// Scripts/json-logic-oracle.py prints it. Every case of the classic operators' files must give
// the suite's outcome, or, where flagd's evaluator disagrees with the suite, flagd's: flags
// must evaluate the same in every OpenFeature provider. Those cases are listed. An outcome is
// a JSON value, or none (an error, or a number JSON can not hold, such as NaN). With `--all`,
// the newer dialects' files run too, as information. Run by Scripts/check-json-logic-compat.sh;
// the suites are not part of the repository.

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
}
if let pairsPath = option("--pairs") {
    try checkPairs(at: pairsPath)
}
if let casesPath = option("--definitions") {
    try checkDefinitions(at: casesPath)
}
guard let folder = arguments.first(where: { !$0.hasPrefix("--") }) else {
    print("usage: StowageJSONLogicCompat <path to json-logic-compat/suites> [--oracle FILE] [--all] [--verbose]")
    print("       StowageJSONLogicCompat --pairs FILE   (Scripts/flagd-differential.py's pairs)")
    print("       StowageJSONLogicCompat --definitions FILE   (Scripts/flagd-definitions-differential.py's cases)")
    exit(2)
}
let runsAll = arguments.contains("--all")
let verbose = arguments.contains("--verbose")
let oraclePath = option("--oracle")

/// The files of the newer dialects, and of operators beyond the classic set.
func isClassic(_ file: String) -> Bool {
    let name = String(file.split(separator: "/").last ?? "")
    if name.hasSuffix(".extra.json") { return false }
    let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
    return !["val", "val-compat", "exists", "try", "throw", "coalesce", "scopes", "chained", "additional"].contains(stem)
}

func load(_ path: String) throws -> StoredValue {
    try StoredValue(jsonText: String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
}

/// Whether two results are the same JSON value (numbers compared as numbers).
func same(_ a: LogicValue, _ b: LogicValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.object(let x), .object(let y)): x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
    default: false
    }
}

func text(_ value: StoredValue?) -> String {
    guard let value else { return "(not JSON)" }
    return (try? value.jsonText()) ?? "\(value)"
}

/// flagd's outcome of each case, per file, in order; `nil` entries where none was given.
var oracle: [String: [StoredValue]] = [:]
if let oraclePath {
    guard case .dictionary(let files) = try load(oraclePath) else {
        print("\(oraclePath) is not an object of files")
        exit(1)
    }
    for (file, outcomes) in files { if case .array(let list) = outcomes { oracle[file] = list } }
}

/// An outcome: a JSON value, or none (an error, or a number JSON can not hold).
enum Outcome: CustomStringConvertible {
    case value(LogicValue)
    case none(String)

    var description: String {
        switch self {
        case .value(let value): text(value.storedValue)
        case .none(let why): "no value (\(why))"
        }
    }

    /// Stowage's outcome of `rule` on `data`.
    init(of rule: StoredValue, on data: LogicValue) {
        do throws(JSONLogicError) {
            let value = try JSONLogicRule(rule).evaluate(data)
            self = value.storedValue == nil ? .none(value.javaScriptString) : .value(value)
        } catch {
            self = .none("error: \(error)")
        }
    }

    func matches(_ other: Outcome) -> Bool {
        switch (self, other) {
        case (.value(let a), .value(let b)): same(a, b)
        case (.none, .none): true
        default: false
        }
    }
}

var followedFlagd: [String] = []

/// Cases where Stowage gives neither flagd's outcome nor, for the first kind, the suite's: each a
/// deliberate difference, with its reason. The rest follow the suite where flagd's Python
/// evaluator shows Python rather than JavaScript.
enum Difference {
    /// The rule is refused when it is checked, as any rule naming an operator Stowage does not know.
    case refusedWhenChecked
    /// Stowage gives the suite's outcome (json-logic-js's), not flagd's Python evaluator's.
    case followsTheSuite
}
let unknownOperatorInABranch =
    "the rule names an operator (throw) that is not JsonLogic's: Stowage checks a rule once, when it arrives, and refuses it then, "
    + "rather than when a request first takes that branch"
let deliberate: [String: (Difference, String)] = [
    "compatible.json: {\"reduce\":[{\"var\":\"integers\"},{\"+\":[{\"var\":\"current\"},{\"var\":\"accumulator\"}]},{\"var\":\"start_with\"}]}": (
        .followsTheSuite, "flagd's Python evaluator does not evaluate reduce's initial value; json-logic-js does"
    ),
    "arithmetic/modulo.json: Modulo with Negative Numbers": (.followsTheSuite, "Python's % floors; JavaScript's keeps the dividend's sign"),
    "arithmetic/modulo.json: Modulo with a negative dividend": (.followsTheSuite, "Python's % floors; JavaScript's keeps the dividend's sign"),
    "arithmetic/modulo.json: Modulo with a negative divisor": (.followsTheSuite, "Python's % floors; JavaScript's keeps the dividend's sign"),
    "comparison/strictEquals.json: === with (1, true)": (.followsTheSuite, "Python's 1 == True; JavaScript's 1 !== true"),
    "comparison/strictEquals.json: === with (0, false)": (.followsTheSuite, "Python's 0 == False; JavaScript's 0 !== false"),
    "comparison/strictNotEquals.json: !== with (1, true)": (.followsTheSuite, "Python's 1 == True; JavaScript's 1 !== true"),
    "comparison/strictNotEquals.json: !== with (0, false)": (.followsTheSuite, "Python's 0 == False; JavaScript's 0 !== false"),
    "string/cat.json: Cat with null values": (.followsTheSuite, "json-logic-js joins null as nothing; flagd's Python evaluator writes \"null\""),
    "string/cat.json: Cat with boolean values": (.followsTheSuite, "Python writes True as \"True\"; JavaScript as \"true\""),
    "control/and.json: And will not interpret the second argument if the first is false": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/and.json: And will not interpret the second argument if the first is falsy": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/and.json: And will not interpret the nth argument if any value before it is false": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/if.json: If will not evaluate then branch if the condition is false": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/if.json: If will not evaluate fallback branch if the condition is true": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/if.json: If will not evaluate other branches or checks if a prior condition is true": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/if.json: No branches except the fallback check will be evaluated if the condition is false": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/or.json: OR will not interpret the second argument if the first is true": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/or.json: OR will not interpret the second argument if the first is truthy": (.refusedWhenChecked, unknownOperatorInABranch),
    "control/or.json: OR will not interpret the nth argument if any value before it is truthy": (.refusedWhenChecked, unknownOperatorInABranch),
]
var deliberateSeen: [String] = []
let index = try load("\(folder)/index.json")
guard case .array(let files) = index else {
    print("\(folder)/index.json is not a list of files")
    exit(1)
}
var (classicPassed, classicTotal, otherPassed, otherTotal) = (0, 0, 0, 0)
var unexpected: [String] = []
for case .string(let file) in files {
    let classic = isClassic(file)
    guard classic || runsAll else { continue }
    guard case .array(let entries) = try load("\(folder)/\(file)") else { continue }
    var (passed, total) = (0, 0)
    for case .dictionary(let entry) in entries {
        guard let rule = entry["rule"] else { continue }
        total += 1
        let description: String
        if case .string(let text) = entry["description"] { description = text } else { description = "?" }
        let data = entry["data"].map(LogicValue.init) ?? .null
        let ours = Outcome(of: rule, on: data)
        let suite: Outcome = entry["error"] != nil ? .none("an error") : .value(entry["result"].map(LogicValue.init) ?? .null)
        var expected = suite
        let caseIndex = total - 1
        let name = "\(file): \(description)"
        if let outcomes = oracle[file], caseIndex < outcomes.count, case .dictionary(let flagd) = outcomes[caseIndex] {
            let flagdOutcome: Outcome = flagd["result"].map { .value(LogicValue($0)) } ?? .none("flagd: \(text(flagd["error"] ?? flagd["notJSON"]))")
            if !flagdOutcome.matches(suite) {
                expected = flagdOutcome
                if classic {
                    followedFlagd.append("\(file): \(description): \(text(rule)) with \(text(entry["data"])): the suite gives \(suite), flagd \(flagdOutcome)")
                }
            }
        }
        if classic, let (difference, reason) = deliberate[name] {
            switch difference {
            case .refusedWhenChecked: expected = .none("refused when checked")
            case .followsTheSuite: expected = suite
            }
            followedFlagd.removeAll { $0.hasPrefix(name + ": ") }
            if ours.matches(expected) { deliberateSeen.append("\(name): \(reason)") }
        }
        if ours.matches(expected) {
            passed += 1
        } else {
            let line = "\(file): \(description): \(text(rule)) with \(text(entry["data"])) gave \(ours), expected \(expected)"
            if classic { unexpected.append(line) } else if verbose { print("  (newer dialect) " + line) }
        }
    }
    if classic {
        (classicPassed, classicTotal) = (classicPassed + passed, classicTotal + total)
    } else {
        (otherPassed, otherTotal) = (otherPassed + passed, otherTotal + total)
    }
    print("\(classic ? "" : "(newer dialect) ")\(file): \(passed) of \(total)")
}
if !followedFlagd.isEmpty {
    print("Where the suite and flagd's evaluator disagree, Stowage follows flagd (\(followedFlagd.count) classic cases):")
    for line in followedFlagd { print("  " + line) }
}
if !deliberateSeen.isEmpty {
    print("Deliberate differences (\(deliberateSeen.count) classic cases):")
    for line in deliberateSeen { print("  " + line) }
}
for line in unexpected { print("FAILED " + line) }
print(
    "Classic operators: \(classicPassed) of \(classicTotal) cases pass: "
        + "\(classicPassed - followedFlagd.count - deliberateSeen.count) as the suite gives, \(followedFlagd.count) as flagd's evaluator gives "
        + "where it disagrees with the suite, \(deliberateSeen.count) deliberate differences.")
if oraclePath == nil { print("(No --oracle: the suite's outcomes were expected throughout.)") }
if runsAll { print("Newer dialects, as information: \(otherPassed) of \(otherTotal) cases pass.") }
exit(unexpected.isEmpty ? 0 : 1)

/// The differential: each generated (rule, data) pair must give what flagd's evaluator gave.
func checkPairs(at path: String) throws -> Never {
    guard case .array(let pairs) = try load(path) else {
        print("\(path) is not a list of pairs")
        exit(1)
    }
    var mismatches: [String] = []
    for case .dictionary(let pair) in pairs {
        guard let rule = pair["rule"], case .dictionary(let flagd)? = pair["flagd"] else { continue }
        let data = pair["data"].map(LogicValue.init) ?? .null
        let ours = Outcome(of: rule, on: data)
        let expected: Outcome = flagd["result"].map { .value(LogicValue($0)) } ?? .none("flagd: \(text(flagd["error"] ?? flagd["notJSON"]))")
        if !ours.matches(expected) {
            mismatches.append("\(text(rule)) with \(text(pair["data"])) gave \(ours), flagd \(expected)")
        }
    }
    for line in mismatches.prefix(25) { print("DIFFERS " + line) }
    print("Differential against flagd's evaluator: \(pairs.count - mismatches.count) of \(pairs.count) generated pairs agree.")
    exit(mismatches.isEmpty ? 0 : 1)
}
