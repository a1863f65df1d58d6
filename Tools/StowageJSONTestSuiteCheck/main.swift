#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Runs the JSON parser over nst/JSONTestSuite's `test_parsing` folder, named
// as the only argument: every y_ file must be accepted, every n_ file
// rejected, and no file may crash it; what it did with each i_
// (implementation-defined) file is printed. A development check, run by
// Scripts/check-json-test-suite.sh; the suite is not part of the repository,
// so the project's own tests carry their own cases.

guard CommandLine.arguments.count == 2 else {
    print("usage: StowageJSONTestSuiteCheck <path to JSONTestSuite/test_parsing>")
    exit(2)
}
let folder = CommandLine.arguments[1]
let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
guard !names.isEmpty else {
    print("No .json files in \(folder).")
    exit(1)
}

var counts: [Character: (passed: Int, total: Int)] = ["y": (0, 0), "n": (0, 0), "i": (0, 0)]
var failures = 0
for name in names {
    guard let kind = name.first, counts[kind] != nil else { continue }
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name)))
    let outcome: String
    let accepted: Bool
    do {
        let value = try JSONParser().parse(bytes)
        outcome = "accepted (\(value.kindDescription))"
        accepted = true
    } catch {
        outcome = "rejected: \(error.reason)"
        accepted = false
    }
    counts[kind]?.total += 1
    switch kind {
    case "y" where !accepted, "n" where accepted:
        failures += 1
        print("FAIL \(name): \(outcome)")
    case "i":
        counts[kind]?.passed += 1
        print("     \(name): \(outcome)")
    default:
        counts[kind]?.passed += 1
    }
}

let summary = [("y", "accepted"), ("n", "rejected"), ("i", "parsed without crashing")].map { kind, verb in
    let count = counts[Character(kind)] ?? (0, 0)
    return "\(kind)_: \(count.passed)/\(count.total) \(verb)"
}
print("JSONTestSuite summary: " + summary.joined(separator: ", "))
exit(failures == 0 ? 0 : 1)
