/// What a worker thread does next, drawn at random by weight.
enum WorkerOperation: String, CaseIterable, Sendable {
    /// `reference.modify` adds 1 to a counter.
    case referenceModify
    /// A wrapper's `$counter.modify` adds 1 to a counter.
    case wrapperModify
    /// A transaction moves an amount between two accounts and counts itself.
    case transfer
    /// A transaction writes, then throws: nothing of it may reach the file.
    case abandonedTransfer
    /// A wrapper sets one of the thread's own keys.
    case setOwnKey
    /// A wrapper removes one of the thread's own keys.
    case removeOwnKey
    /// `store.set` writes a key every thread writes.
    case setSharedKey
    /// Wrappers read the counters and the editor's keys, which must never go back.
    case readCounters
    /// A wrapper reads an own key, which must be what this thread last wrote.
    case readOwnKey
    case flush
    case reload
    /// Opens a store with options of its own (a new state in this process), reads, and drops it.
    case openTransientStore

    /// About one operation in eight takes the file lock and writes (modify,
    /// transactions, flush); those wait for each other across every process,
    /// while the rest run in memory at full speed beside them.
    var weight: Int {
        switch self {
        case .referenceModify, .wrapperModify: 10
        case .transfer: 8
        case .abandonedTransfer: 1
        case .setOwnKey: 60
        case .removeOwnKey: 15
        case .setSharedKey: 30
        case .readCounters: 60
        case .readOwnKey: 40
        case .flush, .reload: 2
        case .openTransientStore: 1
        }
    }

    private static let table: [WorkerOperation] = allCases.flatMap { Array(repeating: $0, count: $0.weight) }

    static func random(using generator: inout some RandomNumberGenerator) -> WorkerOperation {
        table.randomElement(using: &generator)!
    }
}
