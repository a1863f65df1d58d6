// The first process of UserDefaultsPersistenceTests: runs the conformance
// suite's round trips into a suite of UserDefaults, prints every entry it
// left there in Stowage's exact form, and exits, so the test can read the
// suite back in a process that never saw the values written.
//
// It is also the other process of the conformance suite's external change:
// it sets one key (the value given in the exact form, as hex) or removes it.
//
// And, for UserDefaultsFileLocationTests, it writes one key through a store
// and prints the file the store would reread, in whatever environment it was
// started with.
//
//   StowageUserDefaultsWorker write SUITE
//   StowageUserDefaultsWorker set SUITE KEY HEX
//   StowageUserDefaultsWorker remove SUITE KEY
//   StowageUserDefaultsWorker locate SUITE
import Foundation
import StowageTesting
import StowageUserDefaults

let arguments = CommandLine.arguments
func usage() -> Never {
    print("usage: StowageUserDefaultsWorker write SUITE | set SUITE KEY HEX | remove SUITE KEY | locate SUITE")
    exit(64)
}
guard arguments.count >= 3 else { usage() }
let suiteName = arguments[2]

switch (arguments[1], arguments.count) {
case ("set", 5):
    let hex = Array(arguments[4].utf8)
    guard hex.count.isMultiple(of: 2) else { usage() }
    let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) }
    guard bytes.count * 2 == hex.count, let value = ExactForm.decode(Data(bytes)) else { usage() }
    try UserDefaultsStore(suiteName: suiteName).set(value, forKey: arguments[3])
    exit(0)
case ("remove", 4):
    try UserDefaultsStore(suiteName: suiteName).removeValue(forKey: arguments[3])
    exit(0)
case ("locate", 3):
    #if canImport(Darwin)
    usage()
    #else
    try UserDefaultsStore(suiteName: suiteName).set(1, forKey: "located")
    print(try UserDefaultsStore(suiteName: suiteName).fileURL.path(percentEncoded: false))
    exit(0)
    #endif
case ("write", 3): break
default: usage()
}

let store = try UserDefaultsStore(suiteName: suiteName)
let suite = StorageConformanceSuite { store }
let roundTrips: [ConformanceCheck] = [
    .roundTripOfScalars, .roundTripOfStrings, .roundTripOfData, .roundTripOfFoundationValues,
    .roundTripOfOptionals, .roundTripOfCollections, .roundTripOfRawRepresentables, .roundTripOfCodables,
]
var failed = false
for check in roundTrips {
    do {
        try await suite.run(check)
    } catch {
        print("failed \(check): \(error)")
        failed = true
    }
}
guard store.userDefaults.synchronize() || !failed else { exit(1) }
for (key, value) in try store.storedEntries(.granted).sorted(by: { $0.key < $1.key }) {
    let hex = ExactForm.encode(value).map { String(format: "%02x", $0) }.joined()
    print("entry\t\(key)\t\(hex)")
}
exit(failed ? 1 : 0)
