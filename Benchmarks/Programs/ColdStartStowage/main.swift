// Group 15's Stowage program: what a short-lived tool does with a settings
// file. It opens the file with the default options (automatic change
// detection included, unless a third argument is `--no-change-detection`),
// reads one wrapper, prints it and exits. Whole processes are timed, from
// spawn to exit, so loading, opening and exiting all count.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageJSONFile

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: ColdStartStowage FILE KEY [--no-change-detection]")
    exit(64)
}
var options = JSONFileStore.Options()
if arguments.dropFirst(3).contains("--no-change-detection") { options.changeDetection = .none }
let store = JSONFileStore(url: URL(filePath: arguments[1]), options: options)
let setting = JSONFileStorage<Int>(wrappedValue: -1, arguments[2], in: store)
print(setting.wrappedValue)
