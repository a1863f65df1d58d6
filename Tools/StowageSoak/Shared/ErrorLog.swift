import Stowage
import StowageLocking

/// Collects what a process must never see: errors Stowage reports, and
/// broken invariants. Keeps the first few messages and counts the rest.
final class ErrorLog: Sendable {
    private struct Entries: Sendable {
        var count = 0
        var first: [String] = []
    }

    private let entries = Locked(Entries())
    private let keep: Int

    init(keeping keep: Int = 20) {
        self.keep = keep
    }

    func record(_ message: String) {
        entries.withLock { entries in
            entries.count += 1
            if entries.first.count < keep { entries.first.append(message) }
        }
    }

    var count: Int { entries.withLock { $0.count } }
    var messages: [String] { entries.withLock { $0.first } }
}
