// The first process of UserDefaultsPersistenceTests: runs the conformance
// suite's round trips into a suite of UserDefaults, prints every entry it
// left there in Stowage's exact form, and exits, so the test can read the
// suite back in a process that never saw the values written.
//
//   StowageUserDefaultsWorker write SUITE
import Foundation
import StowageTesting
import StowageUserDefaults

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "write" else {
    print("usage: StowageUserDefaultsWorker write SUITE")
    exit(64)
}
let suiteName = arguments[2]
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
