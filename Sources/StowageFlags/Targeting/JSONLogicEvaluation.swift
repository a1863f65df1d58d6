/// One evaluation of a checked rule: JsonLogic's `apply`, as flagd's evaluators run it, operation by
/// operation, counting its steps against ``JSONLogicRule/maximumSteps``.
struct JSONLogicEvaluation {
    /// How `fractional` buckets.
    let bucketing: FractionalBucketing
    private var steps = 0
    /// What the last `fractional` gave, so that a flag can tell a variant a split chose (reason `SPLIT`).
    private(set) var lastFractionalResult: LogicValue?

    init(bucketing: FractionalBucketing = .flagdCore) {
        self.bucketing = bucketing
    }

    mutating func evaluate(_ node: JSONLogicNode, data: LogicValue) throws(JSONLogicError) -> LogicValue {
        switch node {
        case .literal(let value):
            return value
        case .array(let elements):
            var values: [LogicValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try evaluate(element, data: data)) }
            return .array(values)
        case .operation(let operation, let arguments, let path):
            try countStep(at: path)
            return try apply(operation, arguments, data: data, path: path)
        case .lookup(let components, let fallback, let path):
            try countStep(at: path)
            var current = data
            for component in components {
                guard let next = current.property(component) else {
                    guard let fallback else { return .null }
                    return try evaluate(fallback, data: data)
                }
                current = next
            }
            // flagd's evaluator gives the default for a null it finds too (json-logic-js only for a missing key).
            if case .null = current, let fallback { return try evaluate(fallback, data: data) }
            return current
        }
    }

    private mutating func countStep(at path: String) throws(JSONLogicError) {
        steps += 1
        guard steps <= JSONLogicRule.maximumSteps else {
            throw JSONLogicError(path: path, message: "the evaluation took more than \(JSONLogicRule.maximumSteps) steps")
        }
    }

    private mutating func apply(
        _ operation: JSONLogicOperator, _ arguments: [JSONLogicNode], data: LogicValue, path: String
    ) throws(JSONLogicError)
        -> LogicValue
    {
        // The operations that decide which of their arguments to evaluate.
        switch operation {
        case .if, .ternary:
            var index = 0
            while index + 1 < arguments.count {
                if try evaluate(arguments[index], data: data).isTruthy { return try evaluate(arguments[index + 1], data: data) }
                index += 2
            }
            return index < arguments.count ? try evaluate(arguments[index], data: data) : .null
        case .and, .or:
            var current = LogicValue.null
            for argument in arguments {
                current = try evaluate(argument, data: data)
                if current.isTruthy != (operation == .and) { return current }
            }
            return current
        case .map, .filter, .all, .none, .some:
            return try iterate(operation, arguments, data: data)
        case .reduce:
            return try reduce(arguments, data: data)
        default:
            break
        }
        var values: [LogicValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try evaluate(argument, data: data)) }
        if operation == .fractional {
            let result = bucketing == .flagdGo ? Self.goFractional(values, data: data) : Self.fractional(values, data: data)
            lastFractionalResult = result
            return result
        }
        return try JSONLogicEvaluation.compute(operation, values, data: data, path: path)
    }

    /// `map`, `filter`, `all`, `none` and `some`: the first argument's
    /// elements, each the data of the second.
    private mutating func iterate(_ operation: JSONLogicOperator, _ arguments: [JSONLogicNode], data: LogicValue) throws(JSONLogicError) -> LogicValue {
        let scope = arguments.isEmpty ? LogicValue.null : try evaluate(arguments[0], data: data)
        let body = arguments.count > 1 ? arguments[1] : .literal(.null)
        let elements: [LogicValue]
        switch scope {
        case .array(let array): elements = array
        default:
            // json-logic-js: `map` and `filter` of a non-array are empty; `all` of one is false, `none` true, `some` false.
            switch operation {
            case .map, .filter: return .array([])
            case .none: return .bool(true)
            default: return .bool(false)
            }
        }
        switch operation {
        case .map:
            var results: [LogicValue] = []
            results.reserveCapacity(elements.count)
            for element in elements { results.append(try evaluate(body, data: element)) }
            return .array(results)
        case .filter:
            var kept: [LogicValue] = []
            for element in elements where try evaluate(body, data: element).isTruthy { kept.append(element) }
            return .array(kept)
        case .all:
            guard !elements.isEmpty else { return .bool(false) }
            for element in elements where !(try evaluate(body, data: element).isTruthy) { return .bool(false) }
            return .bool(true)
        default:
            var anyTruthy = false
            for element in elements where try evaluate(body, data: element).isTruthy {
                anyTruthy = true
                break
            }
            return .bool(operation == .some ? anyTruthy : !anyTruthy)
        }
    }

    /// `reduce`: the second argument applied to `current` and `accumulator`,
    /// from the third (evaluated) or null.
    private mutating func reduce(_ arguments: [JSONLogicNode], data: LogicValue) throws(JSONLogicError) -> LogicValue {
        let scope = arguments.isEmpty ? LogicValue.null : try evaluate(arguments[0], data: data)
        let body = arguments.count > 1 ? arguments[1] : .literal(.null)
        var accumulator = arguments.count > 2 ? try evaluate(arguments[2], data: data) : .null
        guard case .array(let elements) = scope else { return accumulator }
        for element in elements {
            accumulator = try evaluate(body, data: .object(["current": element, "accumulator": accumulator]))
        }
        return accumulator
    }
}
