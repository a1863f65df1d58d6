// A second process for the JSON file store's tests: they start it to write,
// increment, crash and exit alongside themselves. Not a product.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import StowageJSONFile

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print("usage: StowageJSONFileWorker <command> <file> [arguments]")
    exit(2)
}

/// Reports a failure to the test through the exit status and standard error.
func fail(_ message: String) -> Never {
    _ = "StowageJSONFileWorker: \(message)\n".withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func store(at path: String) -> JSONFileStore {
    JSONFileStore(url: URL(filePath: path), options: .init(writeDelay: .milliseconds(5), changeDetection: .none))
}

func integer(_ index: Int) -> Int {
    guard arguments.count > index, let value = Int(arguments[index]) else { fail("argument \(index) must be an integer") }
    return value
}

switch command {
case "write-keys":
    // write-keys <file> <prefix> <count>: sets <prefix>.<i> = i, then flushes.
    let store = store(at: arguments[1])
    for index in 0..<integer(3) {
        do { try store.set(index, forKey: "\(arguments[2]).\(index)") } catch { fail("\(error)") }
    }
    do { try store.flush() } catch { fail("\(error)") }

case "increment":
    // increment <file> <key> <count>: adds 1 through modify, <count> times.
    let counter = store(at: arguments[1]).reference(forKey: arguments[2], as: Int.self)
    for _ in 0..<integer(3) {
        do { try counter.modify { $0 = ($0 ?? 0) + 1 } } catch { fail("\(error)") }
    }

case "transfer":
    // transfer <file> <count>: moves 1 from "from" to "to" in a transaction, <count> times.
    let store = store(at: arguments[1])
    for _ in 0..<integer(2) {
        do {
            try store.transaction { transaction in
                let from = try transaction.value(forKey: "from", as: Int.self) ?? 0
                let to = try transaction.value(forKey: "to", as: Int.self) ?? 0
                try transaction.set(from - 1, forKey: "from")
                try transaction.set(to + 1, forKey: "to")
            }
        } catch { fail("\(error)") }
    }

case "flush-forever":
    // flush-forever <file>: writes generation n to three keys in one transaction, prints n; until killed.
    let store = store(at: arguments[1])
    var generation = 0
    while true {
        generation += 1
        do {
            // One transaction, so no background write can land between the three keys.
            try store.transaction { transaction in
                try transaction.set(generation, forKey: "generation")
                try transaction.set(generation, forKey: "copy")
                try transaction.set(Array(repeating: generation, count: 200 + generation % 300), forKey: "payload")
            }
            try store.flush()
        } catch { fail("\(error)") }
        // Written straight to the descriptor, so the line is out before the next write starts.
        _ = "\(generation)\n".withCString { write(1, $0, strlen($0)) }
    }

case "set-and-exit":
    // set-and-exit <file> <key> <value>: sets a value and returns from main without flushing.
    let store = JSONFileStore(url: URL(filePath: arguments[1]), options: .init(writeDelay: .seconds(60)))
    do { try store.set(arguments[3], forKey: arguments[2]) } catch { fail("\(error)") }

case "set-and-exit-after":
    // set-and-exit-after <file> <key> <value> <microseconds>: sets a value with a 1 ms write delay,
    // waits, then calls exit(): the exit lands before, during or after the background write.
    // Reports go to standard output, for the test to read.
    StowageReport.handler = { report in
        guard case .error(let error) = report else { return }
        _ = "reported: \(error.message)\n".withCString { write(1, $0, strlen($0)) }
    }
    let store = JSONFileStore(url: URL(filePath: arguments[1]), options: .init(writeDelay: .milliseconds(1), changeDetection: .none))
    do { try store.set(arguments[3], forKey: arguments[2]) } catch { fail("\(error)") }
    usleep(useconds_t(integer(4)))
    exit(0)

case "time-write":
    // time-write <file>: sets a value and writes the file at once, then prints how many
    // microseconds the write took, so a test can time its exits to this build's speed.
    let store = JSONFileStore(url: URL(filePath: arguments[1]), options: .init(writeDelay: .seconds(60), changeDetection: .none))
    do {
        try store.set("timed", forKey: "timed.write")
        let started = ContinuousClock.now
        try store.flush()
        let elapsed = (ContinuousClock.now - started).components
        print(elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000)
    } catch { fail("\(error)") }

case "migrate":
    // migrate <file> <start-gate>: waits for a byte from the FIFO <start-gate>, which the test
    // writes once every racer is started, then moves "count" (an Int) to "label" (a String) and
    // prints the outcome, so racing processes can be told apart.
    let gate = open(arguments[2], O_RDONLY)
    var go: UInt8 = 0
    guard gate >= 0, read(gate, &go, 1) == 1 else { fail("no start signal from \(arguments[2])") }
    close(gate)
    do {
        let outcome = try store(at: arguments[1]).migrateValue(from: "count", as: Int.self, to: "label", as: String.self) { "count \($0)" }
        print(outcome)
    } catch { fail("\(error)") }

case "default-location":
    print(JSONFileStore.defaultLocation.path(percentEncoded: false))

default:
    fail("unknown command \(command)")
}
