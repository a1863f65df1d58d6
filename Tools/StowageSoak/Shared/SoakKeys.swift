/// The keys of the soaked file, named in one place so the workers, the
/// editor, the checker and the final verification agree on them.
enum SoakKeys {
    /// Counters every process increments with `modify`; the editor increments them too.
    static let counterCount = 8
    /// Accounts that transactions move amounts between; they always sum to zero.
    static let accountCount = 6
    /// Keys every thread of every process sets with plain setters (last writer wins).
    static let sharedCount = 16
    /// Keys each thread alone sets and removes, so their final state is known exactly.
    static let ownKeysPerThread = 24
    /// Keys the editor alone sets and removes.
    static let editorTemporaryCount = 8
    /// The key separator of the worker's nested store.
    static let nestedSeparator = "/"

    static func counter(_ index: Int) -> String { "counter.\(index)" }
    static func account(_ index: Int) -> String { "account.\(index)" }
    static func shared(_ index: Int) -> String { "shared.\(index)" }
    /// How many transactions committed.
    static let transfers = "transfers"
    /// The value the faulted writer sets last; see `Disruptions`.
    static let faultyValue = "faulty.value"
    /// The key an exiting writer sets, one per exit.
    static func exit(_ index: Int) -> String { "exit.\(index)" }

    static let externalGeneration = "external.generation"
    static let externalCounter = "external.counter"
    static let externalNote = "external.note"
    static func externalTemporary(_ index: Int) -> String { "external.temp.\(index)" }

    /// The keys whose file value never decreases: `modify`, transactions and
    /// the editor only ever add to them.
    static let monotonic: [String] = (0..<counterCount).map(counter) + [transfers, externalGeneration, externalCounter]

    /// A thread's own key: a flat key for threads on the flat store, a path
    /// through nested objects under `own` for threads on the nested store, so
    /// that all processes merge members of one shared object.
    static func own(process: Int, thread: Int, index: Int, nested: Bool) -> String {
        nested ? "own/p\(process)/t\(thread)/k\(index)" : "p\(process).t\(thread).k\(index)"
    }

    /// The path of members a key names in the file.
    static func path(of key: String) -> [String] {
        key.hasPrefix("own" + nestedSeparator) ? key.split(separator: Character(nestedSeparator)).map(String.init) : [key]
    }
}
