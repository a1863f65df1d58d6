/// One way a store fell short of a check: which check, and what happened.
///
/// ```swift
/// catch let failure as ConformanceFailure {
///     for issue in failure.issues { print(issue.check, issue.message) }
/// }
/// ```
public struct ConformanceIssue: Sendable, Hashable, CustomStringConvertible {
    /// The check that found the issue.
    public let check: ConformanceCheck
    /// A full sentence saying what was done, what was expected and what came back.
    public let message: String

    /// An issue `check` found, described by `message`.
    public init(check: ConformanceCheck, message: String) {
        self.check = check
        self.message = message
    }

    /// The check's name, then the message.
    public var description: String { "\(check): \(message)" }
}
