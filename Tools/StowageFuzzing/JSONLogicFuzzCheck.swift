import Stowage
import StowageFlags
import StowageJSON

/// Flag targeting's JsonLogic evaluator over arbitrary JSON: a rule and the
/// data it is evaluated on.
///
/// The input is JSON text. A two-element array is a rule and its data; any
/// other value is a rule evaluated on itself. Text that is not JSON is
/// skipped: the JSON parser has a target of its own.
///
/// Properties checked, beyond "no rule traps, however deep, wide or hostile":
///
/// - a refused rule names its place as a JSONPath from `$`;
/// - an evaluation ends (within its step limit), and a second evaluation
///   gives the same outcome;
/// - a result JSON can hold is written as JSON text and read back unchanged.
package struct JSONLogicFuzzCheck: FuzzCheck {
    package static let name = "json-logic"

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        guard let value = try? JSONParser().parse(input) else { return }
        let (ruleValue, dataValue): (StoredValue, StoredValue)
        if case .array(let pair) = value, pair.count == 2 { (ruleValue, dataValue) = (pair[0], pair[1]) } else { (ruleValue, dataValue) = (value, value) }
        let rule: JSONLogicRule
        do {
            rule = try JSONLogicRule(ruleValue)
        } catch {
            guard error.path.hasPrefix("$") else { throw PropertyViolation("a refusal names \"\(error.path)\", not a place in the rule") }
            return
        }
        let data = LogicValue(dataValue)
        let first = Result { () throws(JSONLogicError) in try rule.evaluate(data) }
        let second = Result { () throws(JSONLogicError) in try rule.evaluate(data) }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            guard a.storedValue == b.storedValue, a.javaScriptString == b.javaScriptString else {
                throw PropertyViolation("two evaluations differ: \(a.javaScriptString) and \(b.javaScriptString)")
            }
            guard let stored = a.storedValue else { return }
            let text: String
            do { text = try stored.jsonText() } catch { throw PropertyViolation("a result JSON can hold could not be written: \(error)") }
            guard let reread = try? StoredValue(jsonText: text), LogicValue(reread) == a else {
                throw PropertyViolation("the result \(text) does not read back as itself")
            }
        case (.failure(let a), .failure(let b)):
            guard a == b else { throw PropertyViolation("two evaluations fail differently: \(a) and \(b)") }
        default:
            throw PropertyViolation("one evaluation failed and the other did not")
        }
    }
}
