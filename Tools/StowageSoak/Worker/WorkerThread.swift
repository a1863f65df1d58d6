import Foundation
import Stowage
import StowageJSON
import StowageJSONFile
import Synchronization

/// The editor's keys, read through wrappers on the default (flat) store as an
/// app would declare them.
struct ExternalSettings: Sendable {
    @JSONFileStorage(SoakKeys.externalGeneration) var generation = 0
    @JSONFileStorage(SoakKeys.externalCounter) var counter = 0
    @JSONFileStorage(SoakKeys.externalNote) var note: String?
}

/// What one thread did, merged into its process's report.
struct ThreadTally: Sendable {
    var operations: [String: Int] = [:]
    var counterIncrements = Array(repeating: 0, count: SoakKeys.counterCount)
    var accountDeltas = Array(repeating: 0, count: SoakKeys.accountCount)
    var transfers = 0
    var abandonedTransfers = 0
    /// The final state of each own key: its stored form, or `nil` once removed.
    var ownKeys: [String: StoredValue?] = [:]
    var sharedKeysWritten: Set<Int> = []
}

/// One thread of a worker process: draws operations at random until the
/// deadline, counts what it changed, and checks what it reads.
struct WorkerThread {
    let process: Int
    let thread: Int
    let flat: JSONFileStore
    let nested: JSONFileStore
    let progress: ThreadProgress
    let problems: ErrorLog

    private let flatCounters: [JSONFileStorage<Int>]
    private let nestedCounters: [Stored<JSONFileStore, Int>]
    private let flatTransfers: JSONFileStorage<Int>
    private let external = ExternalSettings()
    /// Even threads keep their own keys in the flat store, odd ones in the nested store.
    private let ownKeys: [OwnKey]
    private var tally = ThreadTally()
    /// The largest value read so far per store and key; reads must never go below it.
    private var lastSeen: [String: Int] = [:]
    private var sequence = 0
    private var generator = SystemRandomNumberGenerator()

    init(process: Int, thread: Int, flat: JSONFileStore, nested: JSONFileStore, progress: ThreadProgress, problems: ErrorLog) {
        self.process = process
        self.thread = thread
        self.flat = flat
        self.nested = nested
        self.progress = progress
        self.problems = problems
        flatCounters = (0..<SoakKeys.counterCount).map { JSONFileStorage<Int>(wrappedValue: 0, SoakKeys.counter($0)) }
        nestedCounters = (0..<SoakKeys.counterCount).map { Stored(wrappedValue: 0, SoakKeys.counter($0), in: nested) }
        flatTransfers = JSONFileStorage<Int>(wrappedValue: 0, SoakKeys.transfers)
        let usesNested = thread % 2 == 1
        ownKeys = (0..<SoakKeys.ownKeysPerThread).map { index in
            OwnKey.make(
                key: SoakKeys.own(process: process, thread: thread, index: index, nested: usesNested),
                index: index, process: process, thread: thread, in: usesNested ? nested : flat)
        }
    }

    /// Runs operations until `deadline`.
    mutating func run(until deadline: ContinuousClock.Instant) -> ThreadTally {
        while ContinuousClock.now < deadline {
            let operation = WorkerOperation.random(using: &generator)
            sequence += 1
            perform(operation)
            tally.operations[operation.rawValue, default: 0] += 1
            progress.operations.add(1, ordering: .relaxed)
        }
        return tally
    }

    private mutating func perform(_ operation: WorkerOperation) {
        do {
            switch operation {
            case .referenceModify: try incrementThroughReference()
            case .wrapperModify: incrementThroughWrapper()
            case .transfer: try transfer()
            case .abandonedTransfer: try abandonTransfer()
            case .setOwnKey: setOwnKey()
            case .removeOwnKey: removeOwnKey()
            case .setSharedKey: try setSharedKey()
            case .readCounters: readCounters()
            case .readOwnKey: readOwnKey()
            case .flush: try randomStore().flush()
            case .reload: try randomStore().reload()
            case .openTransientStore: openTransientStore()
            }
        } catch {
            problems.record("thread \(thread): \(operation.rawValue) threw: \(error)")
        }
    }

    private mutating func randomStore() -> JSONFileStore {
        Bool.random(using: &generator) ? flat : nested
    }

    private mutating func randomCounter() -> Int {
        Int.random(in: 0..<SoakKeys.counterCount, using: &generator)
    }

    // MARK: Counters

    private mutating func incrementThroughReference() throws {
        let counter = randomCounter()
        try randomStore().reference(forKey: SoakKeys.counter(counter), as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
        tally.counterIncrements[counter] += 1
    }

    /// A wrapper's `modify` reports a failure instead of throwing; the
    /// reporting handler counts it, so the tally is only trusted when no error was reported.
    private mutating func incrementThroughWrapper() {
        let counter = randomCounter()
        let wrapper = Bool.random(using: &generator) ? flatCounters[counter] : nestedCounters[counter]
        wrapper.projectedValue.modify { $0 += 1 }
        tally.counterIncrements[counter] += 1
    }

    // MARK: Transactions

    private mutating func transfer() throws {
        let from = Int.random(in: 0..<SoakKeys.accountCount, using: &generator)
        let to = (from + Int.random(in: 1..<SoakKeys.accountCount, using: &generator)) % SoakKeys.accountCount
        let amount = Int.random(in: 1...9, using: &generator)
        try randomStore().transaction { transaction in
            let source = try transaction.value(forKey: SoakKeys.account(from), as: Int.self) ?? 0
            let destination = try transaction.value(forKey: SoakKeys.account(to), as: Int.self) ?? 0
            let count = try transaction.value(forKey: SoakKeys.transfers, as: Int.self) ?? 0
            try transaction.set(source - amount, forKey: SoakKeys.account(from))
            try transaction.set(destination + amount, forKey: SoakKeys.account(to))
            try transaction.set(count + 1, forKey: SoakKeys.transfers)
        }
        tally.accountDeltas[from] -= amount
        tally.accountDeltas[to] += amount
        tally.transfers += 1
    }

    private struct Abandoned: Error {}

    private mutating func abandonTransfer() throws {
        do {
            try randomStore().transaction { transaction in
                try transaction.set(1_000_000, forKey: SoakKeys.account(0))
                try transaction.set(-1, forKey: SoakKeys.transfers)
                throw Abandoned()
            }
        } catch is Abandoned {
            tally.abandonedTransfers += 1
        }
    }

    // MARK: Own and shared keys

    private mutating func setOwnKey() {
        let own = ownKeys.randomElement(using: &generator)!
        tally.ownKeys[own.key] = .some(own.set(sequence))
    }

    private mutating func removeOwnKey() {
        let own = ownKeys.randomElement(using: &generator)!
        own.remove()
        tally.ownKeys[own.key] = .some(nil)
    }

    private mutating func setSharedKey() throws {
        let index = Int.random(in: 0..<SoakKeys.sharedCount, using: &generator)
        try randomStore().set("p\(process)t\(thread)#\(sequence)", forKey: SoakKeys.shared(index))
        tally.sharedKeysWritten.insert(index)
    }

    // MARK: Reads

    /// Reads every counter through wrappers on both stores. Counters only grow
    /// in the file, and each store rereads the file in order, so a thread must
    /// never see one go back: that would mean a stale cache or a lost update.
    private mutating func readCounters() {
        for counter in 0..<SoakKeys.counterCount {
            expectNonDecreasing(flatCounters[counter].wrappedValue, key: SoakKeys.counter(counter), store: "flat")
            expectNonDecreasing(nestedCounters[counter].wrappedValue, key: SoakKeys.counter(counter), store: "nested")
        }
        expectNonDecreasing(flatTransfers.wrappedValue, key: SoakKeys.transfers, store: "flat")
        expectNonDecreasing(external.generation, key: SoakKeys.externalGeneration, store: "flat")
        expectNonDecreasing(external.counter, key: SoakKeys.externalCounter, store: "flat")
        _ = external.note
    }

    private mutating func expectNonDecreasing(_ value: Int, key: String, store: String) {
        let slot = store + " " + key
        if let previous = lastSeen[slot], value < previous {
            problems.record("invariant: thread \(thread) read \(key) through the \(store) store as \(value) after \(previous)")
            return
        }
        lastSeen[slot] = value
    }

    /// Only this thread writes its own keys, so a read must give its last write.
    private mutating func readOwnKey() {
        let own = ownKeys.randomElement(using: &generator)!
        let read = own.read()
        let expected = tally.ownKeys[own.key] ?? nil
        if read != expected {
            problems.record(
                "invariant: thread \(thread) read its own key \(own.key) as \(String(describing: read)), not its last write \(String(describing: expected))")
        }
    }

    /// A store with options no other store has gets a state of its own: it
    /// opens (reads the file, starts change detection), is read, and is
    /// dropped, which must release all of it.
    private mutating func openTransientStore() {
        let options = JSONFileStore.Options(writeDelay: .milliseconds(Int.random(in: 1_000...1_000_000_000, using: &generator)))
        let transient = JSONFileStore(url: flat.url, options: options)
        // Once this thread has read a counter above zero, the file holds it (modify writes before returning).
        if (try? transient.snapshot())?.entries.isEmpty ?? true && lastSeen.values.contains(where: { $0 > 0 }) {
            problems.record("invariant: thread \(thread) opened a store that found no values in the file")
        }
        if let error = transient.lastError {
            problems.record("thread \(thread): a store opened on the file has an error: \(error)")
        }
    }
}
