import Stowage

/// What an `EnvironmentStore` holds, behind its lock.
struct EnvironmentState: Sendable {
    /// A write of this store, which hides the variable it names.
    enum OverlayEntry: Sendable, Equatable {
        case set(StoredValue)
        case removed
    }

    /// The variables as read: the environment and the `.env` file, merged.
    var variables: [String: String]
    /// This store's own writes, by variable name.
    var overlay: [String: OverlayEntry] = [:]
    /// The variable name of each key used so far.
    var namesByKey: [String: String] = [:]
    /// The key that first used each variable name, to report a second one.
    var keysByName: [String: String] = [:]
    var lastError: StorageError?

    /// What a read of the variable `name` gives.
    func storedValue(forName name: String) -> StoredValue? {
        switch overlay[name] {
        case .set(let value): value
        case .removed: nil
        case nil: variables[name].map { .string($0) }
        }
    }
}
