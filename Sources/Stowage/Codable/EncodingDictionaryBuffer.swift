/// The dictionary a keyed encoding container fills.
///
/// A reference type because `Encoder.container(keyedBy:)` may be called more
/// than once for the same value (a subclass and its superclass both do) and
/// every container must write into the same dictionary.
final class EncodingDictionaryBuffer {
    /// Finished entries, kept as the final dictionary so that the common case
    /// of a struct of plain fields needs no second pass.
    private var entries: [String: StoredValue] = [:]
    /// Entries whose contents are still being written; rare, so kept apart.
    private var pendingEntries: [String: PendingStoredValue] = [:]

    func set(_ value: StoredValue, forKey key: String) {
        entries[key] = value
        if !pendingEntries.isEmpty { pendingEntries[key] = nil }
    }

    func setPending(_ value: PendingStoredValue, forKey key: String) {
        entries[key] = nil
        pendingEntries[key] = value
    }

    /// The dictionary already pending at `key`, so that asking twice for the
    /// same nested container keeps what the first one wrote.
    func pendingDictionary(forKey key: String) -> EncodingDictionaryBuffer? {
        guard case .dictionary(let buffer)? = pendingEntries[key] else { return nil }
        return buffer
    }

    func resolved() throws -> [String: StoredValue] {
        if pendingEntries.isEmpty { return entries }
        var result = entries
        for (key, pending) in pendingEntries {
            result[key] = try pending.resolved()
        }
        return result
    }
}
