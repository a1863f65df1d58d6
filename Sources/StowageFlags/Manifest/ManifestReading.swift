/// Reading a manifest's members, with errors that say where and what was expected.
enum ManifestReading {
    static func invalid(_ path: String, expected: String) -> StorageError {
        StorageError(code: .invalidValue, reason: "the flag manifest's \(path) is not \(expected).")
    }

    static func members(of value: StoredValue, at path: String) throws(StorageError) -> [String: StoredValue] {
        guard case .dictionary(let members) = value else { throw invalid(path, expected: "an object") }
        return members
    }

    static func string(_ members: [String: StoredValue], _ name: String, at path: String) throws(StorageError) -> String {
        guard case .string(let text)? = members[name] else { throw invalid("\(path).\(name)", expected: "text") }
        return text
    }

    static func bool(_ members: [String: StoredValue], _ name: String, at path: String) throws(StorageError) -> Bool {
        guard case .bool(let flag)? = members[name] else { throw invalid("\(path).\(name)", expected: "true or false") }
        return flag
    }

    static func integer(_ members: [String: StoredValue], _ name: String, at path: String) throws(StorageError) -> Int {
        guard let value = members[name], let number = try? Int(storedValue: value) else { throw invalid("\(path).\(name)", expected: "a whole number") }
        return number
    }

    static func array(_ members: [String: StoredValue], _ name: String, at path: String) throws(StorageError) -> [StoredValue] {
        guard case .array(let elements)? = members[name] else { throw invalid("\(path).\(name)", expected: "an array") }
        return elements
    }
}

extension StorageKeyStrategy.CaseStyle {
    /// The manifest's name for the style.
    var manifestName: String {
        switch self {
        case .asWritten: "as-written"
        case .kebabCase: "kebab-case"
        case .snakeCase: "snake-case"
        }
    }

    init?(manifestName: String) {
        switch manifestName {
        case "as-written": self = .asWritten
        case "kebab-case": self = .kebabCase
        case "snake-case": self = .snakeCase
        default: return nil
        }
    }
}

extension FlagType {
    var manifestValue: StoredValue {
        var members: [String: StoredValue] = ["name": .string(name)]
        switch kind {
        case .bool: members["kind"] = "bool"
        case .integer(let isSigned, let bitWidth):
            members["kind"] = "integer"
            members["signed"] = .bool(isSigned)
            members["bits"] = .signedInteger(Int64(bitWidth))
        case .floatingPoint: members["kind"] = "floating-point"
        case .string: members["kind"] = "string"
        case .choice(let cases):
            members["kind"] = "choice"
            members["cases"] = .array(cases)
        case .other: members["kind"] = "other"
        }
        return .dictionary(members)
    }

    init(manifestValue: StoredValue, at path: String) throws(StorageError) {
        let members = try ManifestReading.members(of: manifestValue, at: path)
        let name = try ManifestReading.string(members, "name", at: path)
        let kind: Kind
        switch try ManifestReading.string(members, "kind", at: path) {
        case "bool": kind = .bool
        case "integer":
            let bits = try ManifestReading.integer(members, "bits", at: path)
            guard [8, 16, 32, 64].contains(bits) else { throw ManifestReading.invalid("\(path).bits", expected: "8, 16, 32 or 64") }
            kind = .integer(isSigned: try ManifestReading.bool(members, "signed", at: path), bitWidth: bits)
        case "floating-point": kind = .floatingPoint
        case "string": kind = .string
        case "choice": kind = .choice(try ManifestReading.array(members, "cases", at: path))
        case "other": kind = .other
        default: throw ManifestReading.invalid("\(path).kind", expected: "bool, integer, floating-point, string, choice or other")
        }
        self.init(name: name, kind: kind)
    }
}

extension FlagDefinition {
    var manifestValue: StoredValue {
        [
            "key": .string(key),
            "path": .array(path.map { .string($0) }),
            "description": .string(description),
            "groups": .array(groups.map { ["name": .string($0.name), "description": .string($0.description)] }),
            "type": type.manifestValue,
            "default": defaultValue,
        ]
    }

    init(manifestValue: StoredValue, at path: String) throws(StorageError) {
        let members = try ManifestReading.members(of: manifestValue, at: path)
        var names: [String] = []
        for element in try ManifestReading.array(members, "path", at: path) {
            guard case .string(let name) = element else { throw ManifestReading.invalid("\(path).path", expected: "an array of names") }
            names.append(name)
        }
        var groups: [FlagGroupDefinition] = []
        for (offset, element) in (try ManifestReading.array(members, "groups", at: path)).enumerated() {
            let group = try ManifestReading.members(of: element, at: "\(path).groups[\(offset)]")
            groups.append(
                FlagGroupDefinition(
                    name: try ManifestReading.string(group, "name", at: "\(path).groups[\(offset)]"),
                    description: try ManifestReading.string(group, "description", at: "\(path).groups[\(offset)]")
                ))
        }
        guard let defaultValue = members["default"] else { throw ManifestReading.invalid("\(path).default", expected: "a value") }
        self.init(
            key: try ManifestReading.string(members, "key", at: path),
            path: names,
            description: try ManifestReading.string(members, "description", at: path),
            groups: groups,
            type: try FlagType(manifestValue: members["type"] ?? .null, at: "\(path).type"),
            defaultValue: defaultValue
        )
    }
}
