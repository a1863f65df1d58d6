import Stowage

/// A JsonLogic rule, checked once when it arrives and then evaluated against
/// data as flagd's evaluators evaluate it (flagd's targeting language).
///
/// Checking rejects an unknown operator, naming where it is, and a rule
/// nested deeper than ``maximumDepth``; evaluation stops with an error after
/// ``maximumSteps``, so no rule, however hostile, traps or runs unbounded.
package struct JSONLogicRule: Sendable {
    /// How deeply operations may nest.
    package static let maximumDepth = 64
    /// How many operations one evaluation may apply (an iterator's body counts once per element).
    package static let maximumSteps = 100_000

    let root: JSONLogicNode
    /// The top-level entries of the data the rule can read (`var` of a name
    /// written in it, and what `fractional` buckets by); `nil` when it may
    /// read any. An evaluation builds only these from a context.
    package let dataNames: Set<String>?

    /// Checks `rule`.
    /// - Throws: ``JSONLogicError`` naming the place in the rule (`$.and[1]`) and what is wrong there.
    package init(_ rule: StoredValue) throws(JSONLogicError) {
        root = try JSONLogicNode(rule, path: "$", depth: 0)
        var names: Set<String> = []
        dataNames = root.collectDataNames(into: &names) ? names : nil
    }

    /// The rule's value for `data`.
    /// - Throws: ``JSONLogicError`` when an operation fails as flagd's evaluator would (`missing_some` without a list of keys), or the rule takes too many steps.
    package func evaluate(_ data: LogicValue) throws(JSONLogicError) -> LogicValue {
        var evaluation = JSONLogicEvaluation()
        return try evaluation.evaluate(root, data: data)
    }

    /// The rule's value for `data`, and whether a `fractional` chose it (the
    /// rule gives what its last `fractional` gave): a flag's reason is then `SPLIT`.
    package func evaluateNotingSplit(
        _ data: LogicValue, bucketing: FractionalBucketing = .flagdCore
    ) throws(JSONLogicError) -> (
        value: LogicValue, isSplit: Bool
    ) {
        var evaluation = JSONLogicEvaluation(bucketing: bucketing)
        let value = try evaluation.evaluate(root, data: data)
        return (value, value != .null && evaluation.lastFractionalResult == value)
    }
}
