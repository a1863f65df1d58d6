import Stowage

/// Collects what reaches `StorageError.reportingHandler`. Installed once for the
/// whole test process (the hook is process-wide and tests run in parallel), so
/// each test filters by keys of its own.
enum ReportedErrors {
    private static let collected = Locked<[StorageError]>([])
    private static let installation: Void = {
        StorageError.reportingHandler = { error in collected.withLock { $0.append(error) } }
    }()

    static func install() { installation }

    static func forKey(_ key: String) -> [StorageError] {
        collected.withLock { $0.filter { $0.key == key } }
    }
}

/// A key no other test uses, so tests can share stores and the error hook.
func uniqueKey(_ base: String = "key", function: String = #function) -> String {
    "\(base).\(function).\(UInt64.random(in: 0...UInt64.max))"
}
