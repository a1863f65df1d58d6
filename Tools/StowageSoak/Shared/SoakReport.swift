/// What a worker process hands the coordinator at its end, as JSON in a file
/// beside the soaked one.
struct WorkerReport: Codable, Sendable {
    var name: String
    /// Completed operations, by kind.
    var operations: [String: Int]
    /// Increments this process made to each counter, through `modify` and wrappers.
    var counterIncrements: [Int]
    /// What this process's committed transactions added to each account.
    var accountDeltas: [Int]
    /// Transactions this process committed.
    var transfers: Int
    /// Transactions this process abandoned by throwing; none may show in the file.
    var abandonedTransfers: Int
    /// The own keys that must be in the file, with their value as compact JSON.
    var ownKeysPresent: [String: String]
    /// The own keys that must not be in the file.
    var ownKeysRemoved: [String]
    /// The shared keys this process set at least once.
    var sharedKeysWritten: [Int]
    /// How often an observer of `external.generation` was called, and through a change stream.
    var observedExternalChanges: Int
    var streamedExternalChanges: Int
    var memoryAtStart: MemorySample
    var memoryAfterWarmUp: MemorySample
    var memoryAtEnd: MemorySample
    var seconds: Double
    /// How long the stores took, after the last write, to show the final file without `reload()`.
    var convergenceMilliseconds: Int?
    var errorCount: Int
    var errors: [String]
}

/// What the external editor hands the coordinator at its end.
struct EditorReport: Codable, Sendable {
    var name: String
    /// Rewrites of the file under the store's lock.
    var edits: Int
    /// Times it only touched the file's modification time.
    var touches: Int
    var counterIncrements: [Int]
    /// The last values it wrote to its own keys.
    var generation: Int
    var note: String
    /// Its temporary keys present at the end, with their values.
    var temporaries: [String: Int]
    var memoryAtStart: MemorySample
    var memoryAfterWarmUp: MemorySample
    var memoryAtEnd: MemorySample
    var seconds: Double
    var errorCount: Int
    var errors: [String]
}
