import Stowage
import StowageLocking

/// The flag configurations a board evaluates: compiled from what the
/// remote store holds under ``FlagConfigurations/storeKey`` whenever that
/// changes (a payload applied here, or a push from another server of a
/// fleet), never per evaluation.
///
/// A configuration that fails its checks when it arrives from the store
/// (written by hand, or by a program that declares the flag with another
/// type) is reported each time the stored value changes, and the flag keeps
/// the last good configuration it had; a flag that never had one evaluates
/// to an error (`PARSE_ERROR`). A stored value without a `flags` object
/// keeps every flag's configuration.
final class FlagConfigurations: Sendable {
    /// The remote store's key for the configurations, in their flagd form with shared evaluators in place.
    static let storeKey = FlagManifest.defaultConfigurationsKey

    struct Table: Sendable {
        var flags: [String: CompiledFlagConfiguration] = [:]
        /// Flags whose stored definition failed its checks and that had no earlier good one, with why.
        var broken: [String: String] = [:]
        var metadata: [String: StoredValue] = [:]
        /// What the table was compiled from, so that an unchanged value is not compiled again.
        var source: StoredValue?
        var isLoaded = false
    }

    private let table = Locked(Table())
    /// Held for a whole reload (reading the store, compiling, installing), so
    /// that two reloads at once (a push and a local update) can not install
    /// an older value over a newer one; evaluations take only `table`'s lock,
    /// for the moment of a lookup or an install.
    private let reloads = Locked(())
    private let parser: FlagConfigurationParser
    /// Told, for each declared flag, whether a read must evaluate its configuration.
    private let declared: [String: any FlagValueChecker]
    /// Whether every read must evaluate, whatever the configurations: while hooks are registered.
    private let alwaysEvaluate: @Sendable () -> Bool

    /// - Parameters:
    ///   - declared: the program's flags by key.
    ///   - isSecret: whether the store keeps a key's value secret, so that
    ///     messages about its variants do not show them.
    ///   - alwaysEvaluate: whether every read must evaluate, so that it runs the hooks.
    init(
        declared: [String: any FlagValueChecker], isSecret: @escaping @Sendable (String) -> Bool = { _ in false },
        alwaysEvaluate: @escaping @Sendable () -> Bool = { false }
    ) {
        self.declared = declared
        self.alwaysEvaluate = alwaysEvaluate
        parser = FlagConfigurationParser(checker: { declared[$0] }, isSecret: isSecret)
    }

    var current: Table { table.withLock { $0 } }

    func configuration(forKey key: String) -> CompiledFlagConfiguration? {
        table.withLock { $0.flags[key] }
    }

    /// Compiles what the store holds now, keeping each flag's last good
    /// configuration where the new one fails its checks, and tells each
    /// declared flag whether a read must evaluate it.
    /// - Parameters:
    ///   - read: reads the stored configurations.
    ///   - remoteValue: a declared flag's remote value, in its canonical form.
    ///   - force: tell the flags again even when the stored value is the one
    ///     compiled last (once the program's flags are bound).
    /// - Returns: the errors for what was left out, to report.
    /// - Throws: what `read` throws; the table is kept.
    func reload(
        reading read: () throws(StorageError) -> StoredValue?, remoteValue: (String) -> StoredValue?, force: Bool = false
    ) throws(StorageError) -> [StorageError] {
        try reloads.withLock { () throws(StorageError) -> [StorageError] in
            let stored = try read()
            let previous = current
            var next = previous
            var rejected: [StorageError] = []
            if !previous.isLoaded || stored != previous.source {
                (next, rejected) = compile(stored, previous: previous)
            } else if !force {
                return []
            }
            let always = alwaysEvaluate()
            let marks = declared.keys.reduce(into: [String: Bool]()) { $0[$1] = always || Self.needsEvaluation($1, in: next, remoteValue: remoteValue) }
            table.withLock { table in
                table = next
                // Under the table's lock, so that no reader pairs this table with another reload's marks.
                for (key, mark) in marks { declared[key]?.setTargeted(mark) }
            }
            return rejected
        }
    }

    /// Tells a declared flag again whether a read must evaluate it, after its
    /// remote value changed: a value that no longer matches its configuration
    /// (written by hand, or by a program that does not declare the flag) must not be read.
    func remoteValueChanged(forKey key: String, remoteValue: (String) -> StoredValue?) {
        guard let flag = declared[key] else { return }
        reloads.withLock {
            let mark = alwaysEvaluate() || Self.needsEvaluation(key, in: current, remoteValue: remoteValue)
            table.withLock { _ in flag.setTargeted(mark) }
        }
    }

    /// Whether a read of the declared flag `key` must evaluate its
    /// configuration rather than read its remote value: it has a rule, or a
    /// definition that failed its checks, or its remote value is not the one
    /// its configuration serves without a rule.
    private static func needsEvaluation(_ key: String, in table: Table, remoteValue: (String) -> StoredValue?) -> Bool {
        if table.broken[key] != nil { return true }
        guard let compiled = table.flags[key] else { return false }
        if compiled.rule != nil { return true }
        return compiled.configuration.staticValue != remoteValue(key)
    }

    private func compile(_ stored: StoredValue?, previous: Table) -> (Table, [StorageError]) {
        var next = Table(source: stored, isLoaded: true)
        guard let stored, stored != .null else { return (next, []) }
        guard case .dictionary(let members) = stored, case .dictionary? = members["flags"] else {
            var kept = previous
            kept.source = stored
            kept.isLoaded = true
            let error = StorageError(
                code: .invalidValue, key: Self.storeKey,
                reason:
                    "the stored flag configurations are not an object with a \"flags\" object (found \(stored.kindDescription)); the flags keep their configurations."
            )
            return (kept, [error])
        }
        let parsed = parser.parse(members)
        next.flags = parsed.flags
        next.metadata = parsed.metadata
        for error in parsed.rejected {
            guard let key = error.key else { continue }
            if let good = previous.flags[key] { next.flags[key] = good } else { next.broken[key] = error.reason }
        }
        return (next, parsed.rejected)
    }
}

extension FlagConfigurations {
    /// The flag's compiled configuration, or why it has none that works, with the set's metadata.
    func lookUp(_ key: String) -> (compiled: CompiledFlagConfiguration?, broken: String?, metadata: [String: StoredValue]) {
        table.withLock { ($0.flags[key], $0.broken[key], $0.metadata) }
    }
}
