/// What checks a flag's values: the program's declaration, which decodes
/// them as the flag's Swift type, or, in a tool, the flag's type as its
/// manifest describes it.
protocol FlagValueChecker: Sendable {
    var type: FlagType { get }
    /// `stored`, as `source` holds it, as a value of the flag's type in its canonical form.
    /// - Throws: `StorageError` naming the key when it is not one.
    func canonicalValue(_ stored: StoredValue, in source: (any UnderlyingStorage)?, key: String) throws -> StoredValue
    /// Told whether a read must now evaluate the flag's configuration (see
    /// `FlagDeclaration.isTargeted`); a tool's checker ignores it.
    func setTargeted(_ isTargeted: Bool)
}

extension FlagValueChecker {
    func setTargeted(_ isTargeted: Bool) {}
}

/// A flag's type from a manifest, for a tool that has no declaration.
struct ManifestValueChecker: FlagValueChecker {
    let type: FlagType

    func canonicalValue(_ stored: StoredValue, in source: (any UnderlyingStorage)?, key: String) throws -> StoredValue {
        try type.checked(stored, forKey: key)
    }
}
