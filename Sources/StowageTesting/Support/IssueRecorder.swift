import Stowage
import StowageLocking

/// Collects the issues one check finds. Tasks of a concurrency check record
/// into it at once, so it is behind a lock.
final class IssueRecorder: Sendable {
    /// More messages than this make a report unreadable without telling more.
    private static let messageLimit = 20

    private struct State {
        var messages: [String] = []
        var suppressedCount = 0
    }

    let check: ConformanceCheck
    private let state = Locked(State())

    init(check: ConformanceCheck) {
        self.check = check
    }

    /// Records an issue, described by a full sentence.
    func record(_ message: String) {
        state.withLock { state in
            if state.messages.count < Self.messageLimit {
                state.messages.append(message)
            } else {
                state.suppressedCount += 1
            }
        }
    }

    /// Records `condition` failing, as `message` says.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { record(message()) }
    }

    /// Runs `body`; when it throws, records that `action` threw and returns `nil`.
    ///
    /// `action` is a phrase such as "Writing 5 through set(_:forKey:)".
    func attempt<Result>(_ action: @autoclosure () -> String, _ body: () throws -> Result) -> Result? {
        do {
            return try body()
        } catch {
            record("\(action()) threw an error: \(error)".endingSentence)
            return nil
        }
    }

    /// Whether nothing has been recorded yet.
    var isClean: Bool {
        state.withLock { $0.messages.isEmpty }
    }

    /// Every issue recorded, with a last one counting those left out.
    var issues: [ConformanceIssue] {
        let (messages, suppressed) = state.withLock { ($0.messages, $0.suppressedCount) }
        var issues = messages.map { ConformanceIssue(check: check, message: $0) }
        if suppressed > 0 {
            let count = suppressed == 1 ? "1 more issue like these was" : "\(suppressed) more issues like these were"
            issues.append(ConformanceIssue(check: check, message: "\(count) left out."))
        }
        return issues
    }
}
