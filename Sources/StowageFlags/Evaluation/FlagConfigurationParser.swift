import Stowage

/// A flag's configuration with its rule checked: what an evaluation runs.
struct CompiledFlagConfiguration: Sendable {
    let configuration: FlagConfiguration
    let rule: JSONLogicRule?
}

/// Reads flagd's flag definitions (`{"flags": …, "$evaluators": …,
/// "metadata": …}`) into checked configurations, flag by flag: a flag whose
/// definition is wrong is left out with an error naming it and the place,
/// and the others are kept.
struct FlagConfigurationParser: Sendable {
    /// Checks a declared flag's variants against its type; `nil` for a key no flag declares.
    let checker: @Sendable (String) -> (any FlagValueChecker)?
    /// Whether a key's values are secret: messages then name a variant but never show its value.
    var isSecret: @Sendable (String) -> Bool = { _ in false }

    /// How many nodes a targeting rule may hold once its shared evaluators
    /// are put in place: each `$ref` copies one, so a small payload could
    /// otherwise grow without bound.
    static let maximumRuleNodes = 100_000

    struct Parsed {
        var flags: [String: CompiledFlagConfiguration] = [:]
        /// The keys the payload sets to `null`: no configuration (a patch removes theirs).
        var removed: Set<String> = []
        var metadata: [String: StoredValue] = [:]
        var rejected: [StorageError] = []
    }

    /// Whether `members` are flag definitions rather than flag values: a
    /// `flags` object, and either flagd's `$schema` or no flag of the
    /// container under the key `flags`.
    static func isDefinitions(_ members: [String: StoredValue], separator: String, declaredKeys: some Collection<String>) -> Bool {
        guard case .dictionary? = members["flags"] else { return false }
        if members["$schema"] != nil { return true }
        return !declaredKeys.contains { $0 == "flags" || $0.hasPrefix("flags" + separator) }
    }

    func parse(_ members: [String: StoredValue]) -> Parsed {
        var parsed = Parsed()
        var evaluators: [String: StoredValue] = [:]
        switch members["$evaluators"] {
        case nil, .null?: break
        case .dictionary(let entries)?: evaluators = entries
        case let other?:
            parsed.rejected.append(setError("$evaluators must be an object of named rules; found \(other.kindDescription). Rules that use them are left out."))
        }
        switch members["metadata"] {
        case nil, .null?: break
        case .dictionary(let entries)?:
            do { parsed.metadata = try Self.metadata(entries, of: nil) } catch { parsed.rejected.append(error) }
        case let other?: parsed.rejected.append(setError("metadata must be an object; found \(other.kindDescription)."))
        }
        guard case .dictionary(let flags)? = members["flags"] else {
            parsed.rejected.append(setError("flag definitions need a \"flags\" object of flag keys and definitions."))
            return parsed
        }
        for (key, definition) in flags.sorted(by: { $0.key < $1.key }) {
            if definition == .null {
                parsed.removed.insert(key)
                continue
            }
            do { parsed.flags[key] = try compile(key: key, definition, evaluators: evaluators) } catch { parsed.rejected.append(error) }
        }
        return parsed
    }

    /// One flag's definition, checked.
    func compile(key: String, _ definition: StoredValue, evaluators: [String: StoredValue]) throws(StorageError) -> CompiledFlagConfiguration {
        guard case .dictionary(let entries) = definition else {
            throw flagError(key, "its definition must be an object; found \(definition.kindDescription).")
        }
        let isEnabled: Bool
        switch entries["state"] {
        case .string("ENABLED")?: isEnabled = true
        case .string("DISABLED")?: isEnabled = false
        case let other: throw flagError(key, "state must be \"ENABLED\" or \"DISABLED\"; found \(other.map(FlagValueText.render) ?? "nothing").")
        }
        guard case .dictionary(var variants)? = entries["variants"], !variants.isEmpty else {
            throw flagError(key, "variants must be an object of at least one named value.")
        }
        try checkVariants(&variants, of: key)
        let defaultVariant: String?
        switch entries["defaultVariant"] {
        case nil, .null?, .string("")?: defaultVariant = nil
        case .string(let name)?: defaultVariant = name
        case .bool(let flag)?: defaultVariant = flag ? "true" : "false"
        case let other?: throw flagError(key, "defaultVariant must name a variant or be null; found \(other.kindDescription).")
        }
        if let defaultVariant, variants[defaultVariant] == nil {
            throw flagError(key, "defaultVariant \"\(defaultVariant)\" is none of its variants (\(variants.keys.sorted().joined(separator: ", "))).")
        }
        var targeting: StoredValue?
        var rule: JSONLogicRule?
        switch entries["targeting"] {
        case nil, .null?: break
        case .dictionary(let members)? where members.isEmpty: break
        case .dictionary?:
            var nodes = 0
            let resolved = try resolveReferences(in: entries["targeting"]!, evaluators: evaluators, key: key, path: "$", nodes: &nodes)
            do { rule = try JSONLogicRule(resolved) } catch {
                throw flagError(key, "its targeting rule is not valid at \(error.path): \(error.message).")
            }
            targeting = resolved
        case let other?: throw flagError(key, "targeting must be a JsonLogic rule (an object); found \(other.kindDescription).")
        }
        var metadata: [String: StoredValue] = [:]
        switch entries["metadata"] {
        case nil, .null?: break
        case .dictionary(let members)?: metadata = try Self.metadata(members, of: key)
        case let other?: throw flagError(key, "metadata must be an object; found \(other.kindDescription).")
        }
        let configuration = FlagConfiguration(
            key: key, isEnabled: isEnabled, variants: variants, defaultVariant: defaultVariant, targeting: targeting, metadata: metadata)
        return CompiledFlagConfiguration(configuration: configuration, rule: rule)
    }

    /// A declared flag's variants must be of its type (and become its
    /// canonical form); an undeclared flag's must all be of one JSON kind, as flagd requires.
    private func checkVariants(_ variants: inout [String: StoredValue], of key: String) throws(StorageError) {
        if let checker = checker(key) {
            for (name, value) in variants.sorted(by: { $0.key < $1.key }) {
                do { variants[name] = try checker.canonicalValue(value, in: nil, key: key) } catch {
                    let shown = isSecret(key) ? "a secret value" : FlagValueText.render(value)
                    throw flagError(
                        key, "variant \"\(name)\" is \(shown), not a valid \(checker.type.name)\(FlagValueText.why(checker.type, error: error)).",
                        type: .typeMismatch)
                }
            }
            return
        }
        let kinds = Set(variants.values.map(Self.jsonKind))
        guard kinds.count == 1, let kind = kinds.first, kind != "null" else {
            let listed = variants.sorted(by: { $0.key < $1.key }).map { "\($0.key): \(Self.jsonKind($0.value))" }.joined(separator: ", ")
            throw flagError(key, "its variants must all be booleans, numbers, text or objects; found \(listed).", type: .typeMismatch)
        }
    }

    private static func jsonKind(_ value: StoredValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .signedInteger, .unsignedInteger, .double: "number"
        case .string, .date, .data: "text"
        case .array, .dictionary: "object"
        }
    }

    /// The rule with every `{"$ref": "name"}` replaced by the shared evaluator of that name.
    private func resolveReferences(
        in rule: StoredValue, evaluators: [String: StoredValue], key: String, path: String, nodes: inout Int
    ) throws(StorageError) -> StoredValue {
        try count(1, into: &nodes, key: key)
        switch rule {
        case .dictionary(let members):
            if members.count == 1, case .string(let name)? = members["$ref"] {
                guard let evaluator = evaluators[name] else {
                    throw flagError(key, "its targeting rule refers at \(path) to the shared evaluator \"\(name)\", which $evaluators does not define.")
                }
                if Self.containsReference(evaluator) {
                    throw flagError(
                        key, "the shared evaluator \"\(name)\" it uses at \(path) refers to another; shared evaluators must be self-contained, as in flagd.")
                }
                try count(Self.count(evaluator), into: &nodes, key: key)
                return evaluator
            }
            var resolved: [String: StoredValue] = [:]
            for (name, value) in members {
                resolved[name] = try resolveReferences(in: value, evaluators: evaluators, key: key, path: "\(path).\(name)", nodes: &nodes)
            }
            return .dictionary(resolved)
        case .array(let elements):
            var resolved: [StoredValue] = []
            for (index, element) in elements.enumerated() {
                resolved.append(try resolveReferences(in: element, evaluators: evaluators, key: key, path: "\(path)[\(index)]", nodes: &nodes))
            }
            return .array(resolved)
        default:
            return rule
        }
    }

    /// Adds `added` values to a rule's count, refusing the flag past ``maximumRuleNodes``.
    private func count(_ added: Int, into nodes: inout Int, key: String) throws(StorageError) {
        nodes += added
        guard nodes <= Self.maximumRuleNodes else {
            throw flagError(key, "its targeting rule, with its shared evaluators in place, holds more than \(Self.maximumRuleNodes) values.")
        }
    }

    /// How many values `value` holds, itself included.
    private static func count(_ value: StoredValue) -> Int {
        switch value {
        case .dictionary(let members): 1 + members.values.reduce(0) { $0 + count($1) }
        case .array(let elements): 1 + elements.reduce(0) { $0 + count($1) }
        default: 1
        }
    }

    private static func containsReference(_ value: StoredValue) -> Bool {
        switch value {
        case .dictionary(let members): members["$ref"] != nil || members.values.contains(where: containsReference)
        case .array(let elements): elements.contains(where: containsReference)
        default: false
        }
    }

    /// Metadata: text, numbers and booleans by name, as flagd's schema allows.
    private static func metadata(_ members: [String: StoredValue], of key: String?) throws(StorageError) -> [String: StoredValue] {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string, .bool, .signedInteger, .unsignedInteger, .double: continue
            default:
                let owner = key == nil ? "the flag set's metadata" : "its metadata"
                let reason = "\(owner) \"\(name)\" must be text, a number or a boolean; found \(value.kindDescription)."
                throw StorageError(code: .typeMismatch, key: key, reason: key == nil ? reason : "flag definition left out: \(reason)")
            }
        }
        return members
    }

    private func flagError(_ key: String, _ reason: String, type code: StorageError.Code = .invalidValue) -> StorageError {
        StorageError(code: code, key: key, reason: "flag definition left out: \(reason)")
    }

    private func setError(_ reason: String) -> StorageError {
        StorageError(code: .invalidValue, reason: "flag definitions: \(reason)")
    }
}
