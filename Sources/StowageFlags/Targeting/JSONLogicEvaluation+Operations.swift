/// The operations whose arguments are all evaluated first, each as flagd's
/// evaluators apply it (see `LogicValue`'s conversions).
extension JSONLogicEvaluation {
    static func compute(_ operation: JSONLogicOperator, _ values: [LogicValue], data: LogicValue, path: String) throws(JSONLogicError) -> LogicValue {
        func argument(_ index: Int) -> LogicValue { index < values.count ? values[index] : .null }
        /// Whether the argument was given (JavaScript's `undefined` is not).
        func has(_ index: Int) -> Bool { index < values.count }
        switch operation {
        case .variable:
            return variable(values, data: data)
        case .missing:
            return missing(values, data: data)
        case .missingSome:
            let needed = argument(0).numericValue
            guard case .array(let options) = argument(1) else {
                throw JSONLogicError(path: path, message: "missing_some needs a list of keys as its second argument")
            }
            guard case .array(let absent) = missing([.array(options)], data: data) else { return .array([]) }
            return Double(options.count - absent.count) >= needed ? .array([]) : .array(absent)
        case .looselyEquals: return .bool(argument(0).looselyEquals(argument(1)))
        case .strictlyEquals: return .bool(argument(0).strictlyEquals(argument(1)))
        case .looselyDiffers: return .bool(!argument(0).looselyEquals(argument(1)))
        case .strictlyDiffers: return .bool(!argument(0).strictlyEquals(argument(1)))
        case .not: return .bool(!argument(0).isTruthy)
        case .truthy: return .bool(argument(0).isTruthy)
        case .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual:
            // a > b, and a > b > c with a third argument (flagd's evaluator chains all four, json-logic-js `<` and `<=`).
            let orEqual = operation == .greaterThanOrEqual || operation == .lessThanOrEqual
            func holds(_ a: LogicValue, _ b: LogicValue) -> Bool {
                operation == .lessThan || operation == .lessThanOrEqual ? a.isLess(than: b, orEqual: orEqual) : b.isLess(than: a, orEqual: orEqual)
            }
            let first = holds(argument(0), argument(1))
            guard has(2) else { return .bool(first) }
            return .bool(first && holds(argument(1), argument(2)))
        case .max, .min:
            // NaN when an argument is not a number, and of none (flagd's evaluator; json-logic-js gives an infinity: no value either).
            guard !values.isEmpty else { return .number(.nan) }
            var result = operation == .max ? -Double.infinity : Double.infinity
            for value in values {
                let number = value.numericValue
                if number.isNaN { return .number(.nan) }
                result = operation == .max ? Swift.max(result, number) : Swift.min(result, number)
            }
            return .number(result)
        case .plus:
            return .number(values.reduce(0) { $0 + $1.numericValue })
        case .times:
            return .number(values.reduce(1) { $0 * $1.numericValue })
        case .minus:
            guard has(1) else { return .number(-argument(0).numericValue) }
            return .number(argument(0).numericValue - argument(1).numericValue)
        case .divide:
            return .number(argument(0).numericValue / argument(1).numericValue)
        case .remainder:
            // JavaScript's remainder, which keeps the dividend's sign (flagd's Python evaluator floors instead).
            return .number(argument(0).numericValue.truncatingRemainder(dividingBy: argument(1).numericValue))
        case .merge:
            var merged: [LogicValue] = []
            for value in values {
                if case .array(let elements) = value { merged += elements } else { merged.append(value) }
            }
            return .array(merged)
        case .in:
            switch argument(1) {
            case .string(let text):
                let needle = argument(0).javaScriptString
                return .bool(needle.isEmpty || text.unicodeScalars.firstRange(of: needle.unicodeScalars) != nil)
            case .array(let elements):
                return .bool(elements.contains { $0.strictlyEquals(argument(0)) })
            default:
                return .bool(false)
            }
        case .cat:
            return .string(values.map { value in if case .null = value { "" } else { value.javaScriptString } }.joined())
        case .substr:
            return .string(substring(argument(0).javaScriptString, start: argument(1), length: has(2) ? argument(2) : nil))
        case .log:
            return argument(0)
        case .fractional:
            return fractional(values, data: data)
        case .semanticVersion:
            return semanticVersionComparison(values)
        case .startsWith, .endsWith:
            return affixComparison(values, prefix: operation == .startsWith)
        case .if, .ternary, .and, .or, .map, .filter, .reduce, .all, .none, .some:
            // Evaluated before their arguments are; see `apply`.
            return .null
        }
    }

    /// `var`: the data itself for no name, "" or null; else the value at the
    /// dotted path, or the default (the second argument, else null) where
    /// the path leads nowhere or to null.
    private static func variable(_ values: [LogicValue], data: LogicValue) -> LogicValue {
        let notFound = values.count > 1 ? values[1] : .null
        guard let name = values.first else { return data }
        switch name {
        case .null: return data
        case .string(let text) where text.isEmpty: return data
        default: break
        }
        var current = data
        for component in name.javaScriptString.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = current.property(String(component)) else { return notFound }
            current = next
        }
        // flagd's evaluator gives the default for a null it finds too (json-logic-js only for a missing key).
        if case .null = current { return notFound }
        return current
    }

    /// `missing`: the keys (the first argument's, when it is a list) whose value is null, absent or "".
    private static func missing(_ values: [LogicValue], data: LogicValue) -> LogicValue {
        let keys: [LogicValue]
        if case .array(let list) = values.first { keys = list } else { keys = values }
        return .array(
            keys.filter { key in
                switch variable([key], data: data) {
                case .null: true
                case .string(let text): text.isEmpty
                default: false
                }
            })
    }

    /// JavaScript's `String.prototype.substr(start, length)` on UTF-16 code
    /// units, with json-logic-js's reading of a negative length: that many
    /// units left off the end.
    private static func substring(_ source: String, start startValue: LogicValue, length lengthValue: LogicValue?) -> String {
        let units = Array(source.utf16)
        let size = units.count
        func integer(_ value: LogicValue) -> Double {
            let number = value.numericValue
            return number.isNaN ? 0 : number.rounded(.towardZero)
        }
        let requestedStart = integer(startValue)
        let start = requestedStart < 0 ? Swift.max(Double(size) + requestedStart, 0) : Swift.min(requestedStart, Double(size))
        let available = Double(size) - start
        var length = available
        if let lengthValue {
            let requested = integer(lengthValue)
            length = requested < 0 ? Swift.max(available + requested, 0) : Swift.min(requested, available)
        }
        let from = Int(start)
        let to = from + Int(Swift.max(length, 0))
        return String(decoding: units[from..<to], as: UTF16.self)
    }
}

extension LogicValue {
    /// `value[name]` in JavaScript: an object's entry, an array's element or
    /// a string's code unit at a canonical index, or their `length`; `nil`
    /// where JavaScript gives `undefined`.
    func property(_ name: String) -> LogicValue? {
        switch self {
        case .object(let entries):
            return entries[name]
        case .array(let elements):
            if name == "length" { return .number(Double(elements.count)) }
            guard let index = Self.canonicalIndex(name), index < elements.count else { return nil }
            return elements[index]
        case .string(let text):
            let units = Array(text.utf16)
            if name == "length" { return .number(Double(units.count)) }
            guard let index = Self.canonicalIndex(name), index < units.count else { return nil }
            return .string(String(decoding: [units[index]], as: UTF16.self))
        default:
            return nil
        }
    }

    /// `name` as an array index, when it is one's canonical text ("0", "12", not "01" or "+1").
    private static func canonicalIndex(_ name: String) -> Int? {
        guard let index = Int(name), index >= 0, String(index) == name else { return nil }
        return index
    }
}
