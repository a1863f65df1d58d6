/// What went wrong, and where in the rule.
package struct JSONLogicError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The place in the rule, as a JSONPath (`$.if[0]`).
    package let path: String
    package let message: String

    package var description: String { "\(path): \(message)" }
}
