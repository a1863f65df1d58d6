/// Every flag of a container, found by walking its declaration once with
/// `Mirror`, with the keys the pole's key strategy gives them.
struct FlagCatalog: Sendable {
    /// A flag found in the container, before its key is known.
    struct Found {
        var path: [String]
        var groups: [(definition: FlagGroupDefinition, key: FlagGroupKey)]
        var declaration: any AnyFlagDeclaration
    }

    let definitions: [FlagDefinition]
    let declarations: [any AnyFlagDeclaration]

    /// Walks `container`, computes each flag's key and checks that no two flags share one.
    init(_ container: some FlagContainer, keyStrategy: StorageKeyStrategy, reservedKeys: Set<String>) throws(StorageError) {
        let found = Self.flags(in: container)
        var definitions: [FlagDefinition] = []
        var indexByKey: [String: Int] = [:]
        let containerName = String(describing: type(of: container))
        for flag in found {
            let key = Self.key(of: flag, strategy: keyStrategy)
            let name = ([containerName] + flag.path).joined(separator: ".")
            if let earlier = indexByKey[key] {
                let earlierName = ([containerName] + definitions[earlier].path).joined(separator: ".")
                throw StorageError(
                    code: .keyConflict, key: key,
                    reason: "flags \(earlierName) and \(name) have the same key; give one of them another key (key: .custom(…)) or its group another part."
                )
            }
            if reservedKeys.contains(key) {
                throw StorageError(
                    code: .keyConflict, key: key, reason: "flag \(name) has a key the flag pole keeps for itself; give it another key (key: .custom(…)).")
            }
            let defaultValue: StoredValue
            do { defaultValue = try flag.declaration.encodedDefault() } catch {
                throw StorageError.wrapping(error, key: key, code: .encodingFailed, reason: "the default of flag \(name) could not be encoded.")
            }
            indexByKey[key] = definitions.count
            definitions.append(
                FlagDefinition(
                    key: key, path: flag.path, description: flag.declaration.description,
                    groups: flag.groups.map(\.definition), type: flag.declaration.type, defaultValue: defaultValue
                ))
        }
        self.definitions = definitions
        self.declarations = found.map(\.declaration)
    }

    /// Every `@Flag` in `container` and in its groups, depth first, in declaration order.
    static func flags(in container: any FlagContainer, path: [String] = [], groups: [(definition: FlagGroupDefinition, key: FlagGroupKey)] = []) -> [Found] {
        var found: [Found] = []
        for child in Mirror(reflecting: container).children {
            guard let label = child.label else { continue }
            // A wrapped property's storage is named after the property with a leading underscore.
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            if let flag = child.value as? any DeclaredFlag {
                found.append(Found(path: path + [name], groups: groups, declaration: flag.anyDeclaration))
            } else if let group = child.value as? any DeclaredFlagGroup {
                let definition = FlagGroupDefinition(name: name, description: group.groupDescription)
                found += flags(in: group.container, path: path + [name], groups: groups + [(definition, group.groupKey)])
            }
        }
        return found
    }

    /// The key: the prefix, each group's part, the flag's part, joined by the
    /// strategy's separator; or the flag's full name, as written.
    static func key(of flag: Found, strategy: StorageKeyStrategy) -> String {
        var parts: [String] = []
        for (group, key) in flag.groups {
            switch key.rule {
            case .automatic: parts.append(strategy.styled(group.name))
            case .styled(let style): parts.append(style.apply(to: group.name))
            case .custom(let name): parts.append(name)
            case .skipped: break
            }
        }
        let name = flag.path.last ?? ""
        switch flag.declaration.key.rule {
        case .fullName(let key): return key
        case .automatic: parts.append(strategy.styled(name))
        case .styled(let style): parts.append(style.apply(to: name))
        case .custom(let custom): parts.append(custom)
        }
        return strategy.key(joining: parts)
    }
}
