// Group 18's memory figures, measured in a process of its own: the benchmark
// suite's malloc interposer adds to every allocation, so glibc's counts inside
// it are not what a program pays.
//
//   ReferenceMemory stowage COUNT     COUNT live references to distinct keys of an InMemoryStore
//   ReferenceMemory baseline COUNT    COUNT Mutex-guarded class instances
//
// Prints the bytes each took as glibc's mallinfo2 counts them (chunk overhead
// included), and the allocator's count before and after.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MallocStatistics
import StowageInMemory
import Synchronization

/// The hand-written alternative to a reference (as the suite's `LockedCounter`).
final class LockedCounter: Sendable {
    let value: Mutex<Int>

    init(_ value: Int) { self.value = Mutex(value) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0, ["stowage", "baseline"].contains(arguments[1]) else {
    print("usage: ReferenceMemory stowage|baseline COUNT")
    exit(64)
}
let keys = (0..<count).map { "key.\($0)" }
let store = InMemoryStore()
var references: [StorageReference<InMemoryStore, Int>] = []
var counters: [LockedCounter] = []
references.reserveCapacity(count)
counters.reserveCapacity(count)

let before = stowage_allocated_bytes()
guard before >= 0 else {
    print("this C library has no mallinfo2")
    exit(69)
}
if arguments[1] == "stowage" {
    for key in keys { references.append(store.reference(forKey: key, as: Int.self)) }
} else {
    for index in 0..<count { counters.append(LockedCounter(index)) }
}
let after = stowage_allocated_bytes()
print("\((after - before) / Int64(count)) bytes each (\(before) before, \(after) after)")
withExtendedLifetime((references, counters)) {}
