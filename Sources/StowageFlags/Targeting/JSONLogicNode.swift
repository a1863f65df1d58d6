import Stowage

/// A checked rule: literals, arrays whose elements are evaluated, and
/// operations with their arguments, each with its place in the rule.
indirect enum JSONLogicNode: Sendable {
    case literal(LogicValue)
    case array([JSONLogicNode])
    case operation(JSONLogicOperator, [JSONLogicNode], path: String)
    /// `var` of a name written in the rule (`{"var": "user.tier"}`), split
    /// into its components once, when the rule is checked, not on every
    /// evaluation; `fallback` is its second argument.
    case lookup(components: [String], fallback: JSONLogicNode?, path: String)

    /// Checks `rule`, as json-logic-js reads it: an object with exactly one
    /// key is an operation, its value the argument list (a lone argument
    /// stands for a list of one); any other object is a literal.
    init(_ rule: StoredValue, path: String, depth: Int) throws(JSONLogicError) {
        guard depth <= JSONLogicRule.maximumDepth else {
            throw JSONLogicError(path: path, message: "the rule nests deeper than \(JSONLogicRule.maximumDepth) levels")
        }
        switch rule {
        case .array(let elements):
            var nodes: [JSONLogicNode] = []
            nodes.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                nodes.append(try JSONLogicNode(element, path: "\(path)[\(index)]", depth: depth + 1))
            }
            self = .array(nodes)
        case .dictionary(let entries) where entries.count == 1:
            let (name, value) = entries.first!
            let place = "\(path).\(name)"
            guard let operation = JSONLogicOperator(rawValue: name) else {
                throw JSONLogicError(path: place, message: "unknown operator \"\(name)\"")
            }
            let arguments: [StoredValue]
            if case .array(let list) = value { arguments = list } else { arguments = [value] }
            var nodes: [JSONLogicNode] = []
            nodes.reserveCapacity(arguments.count)
            for (index, argument) in arguments.enumerated() {
                nodes.append(try JSONLogicNode(argument, path: "\(place)[\(index)]", depth: depth + 1))
            }
            if operation == .variable, let components = Self.components(ofLiteralName: nodes.first), nodes.count <= 2 {
                self = .lookup(components: components, fallback: nodes.count == 2 ? nodes[1] : nil, path: place)
            } else {
                self = .operation(operation, nodes, path: place)
            }
        default:
            self = .literal(LogicValue(rule))
        }
    }
}

extension JSONLogicNode {
    /// The components of a `var` name written as text or a number (`"a.b"`,
    /// `0`); `nil` for one computed at evaluation, or the empty name (the whole data).
    private static func components(ofLiteralName node: JSONLogicNode?) -> [String]? {
        guard case .literal(let name)? = node else { return nil }
        switch name {
        case .string(let text) where !text.isEmpty: return text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        case .number: return name.javaScriptString.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        default: return nil
        }
    }

    /// Adds the names of the data's top-level entries the rule can read to
    /// `names`, so that an evaluation builds only those from a context.
    /// - Returns: `false` when the rule may read the whole data, or a name
    ///   computed at evaluation: then every entry is needed.
    func collectDataNames(into names: inout Set<String>) -> Bool {
        switch self {
        case .literal:
            return true
        case .array(let elements):
            return elements.allSatisfy { $0.collectDataNames(into: &names) }
        case .lookup(let components, let fallback, _):
            names.insert(components[0])
            return fallback?.collectDataNames(into: &names) ?? true
        case .operation(let operation, let arguments, _):
            switch operation {
            case .variable, .missing, .missingSome:
                // A name computed by an operation, or the whole data.
                return false
            case .fractional:
                // Without a bucketing value, it buckets by the flag's key and the targeting key.
                names.formUnion(["targetingKey", "$flagd"])
            default:
                break
            }
            return arguments.allSatisfy { $0.collectDataNames(into: &names) }
        }
    }
}

/// The operators json-logic-js knows (but `method`, which calls JavaScript),
/// and flagd's.
enum JSONLogicOperator: String, Sendable {
    case variable = "var"
    case missing
    case missingSome = "missing_some"
    case `if`
    case ternary = "?:"
    case looselyEquals = "=="
    case strictlyEquals = "==="
    case looselyDiffers = "!="
    case strictlyDiffers = "!=="
    case not = "!"
    case truthy = "!!"
    case or
    case and
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case max
    case min
    case plus = "+"
    case minus = "-"
    case times = "*"
    case divide = "/"
    case remainder = "%"
    case map
    case filter
    case reduce
    case all
    case none
    case some
    case merge
    case `in`
    case cat
    case substr
    case log
    case fractional
    case semanticVersion = "sem_ver"
    case startsWith = "starts_with"
    case endsWith = "ends_with"
}
