import Stowage

/// The flag configurations a board evaluates: compiled from what the
/// remote store holds under ``FlagConfigurations/storeKey`` whenever that
/// changes (a payload applied here, or a push from another server of a
/// fleet), never per evaluation.
///
/// A configuration that fails its checks when it arrives from the store
/// (written by hand, or by a program that declares the flag with another
/// type) is reported once, and the flag keeps the last good configuration
/// it had; a flag that never had one evaluates to an error (`PARSE_ERROR`).
final class FlagConfigurations: Sendable {
    /// The remote store's key for the configurations, in their flagd form with shared evaluators in place.
    static let storeKey = "$flag-configurations"

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
    private let parser: FlagConfigurationParser
    /// Told, for each declared flag, whether a rule now decides its value.
    private let declared: [String: any FlagValueChecker]

    init(declared: [String: any FlagValueChecker]) {
        self.declared = declared
        parser = FlagConfigurationParser(checker: { declared[$0] })
    }

    var current: Table { table.withLock { $0 } }

    func configuration(forKey key: String) -> CompiledFlagConfiguration? {
        table.withLock { $0.flags[key] }
    }

    /// Compiles what the store holds now, keeping each flag's last good
    /// configuration where the new one fails its checks. The store is read
    /// under the table's lock, so that two reloads at once (a push and a
    /// local update) can not install an older value over a newer one.
    /// - Returns: the errors for what was left out, to report.
    /// - Throws: what `read` throws; the table is kept.
    func reload(reading read: () throws(StorageError) -> StoredValue?) throws(StorageError) -> [StorageError] {
        let (rejected, targeted) = try table.withLock { (table) throws(StorageError) -> ([StorageError], [String: Bool]?) in
            let stored = try read()
            if table.isLoaded, stored == table.source { return ([], nil) }
            let (next, rejected) = compile(stored, previous: table)
            table = next
            return (rejected, declared.keys.reduce(into: [:]) { $0[$1] = next.flags[$1]?.rule != nil })
        }
        for (key, isTargeted) in targeted ?? [:] { declared[key]?.setTargeted(isTargeted) }
        return rejected
    }

    private func compile(_ stored: StoredValue?, previous: Table) -> (Table, [StorageError]) {
        var next = Table(source: stored, isLoaded: true)
        guard let stored, stored != .null else { return (next, []) }
        guard case .dictionary(let members) = stored else {
            var kept = previous
            kept.source = stored
            kept.isLoaded = true
            let error = StorageError(
                code: .invalidValue, key: Self.storeKey,
                reason: "the stored flag configurations are \(stored.kindDescription), not an object; the flags keep their configurations.")
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
