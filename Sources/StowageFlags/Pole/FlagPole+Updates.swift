#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension FlagPole {
    /// Applies the remote values a server sent, as JSON: an object of flag
    /// keys and values, flat (`{"search.vector-index": true}`), nested by
    /// the key strategy's separator (`{"search": {"vector-index": true}}`),
    /// or both; or flag definitions in flagd's format (`{"flags": {…}}`,
    /// see ``FlagConfiguration``), whose rules decide a flag's value per
    /// ``EvaluationContext``. A payload of values replaces the configurations
    /// (all of them in full state, the named flags' in a patch), and one of
    /// definitions the values; a flag whose entry is rejected keeps both.
    ///
    /// Atomic: a listing or snapshot taken meanwhile shows all of the payload
    /// or none of it, and a reader that has seen one of its values never
    /// reads an older value of another afterwards (with a remote store that
    /// replaces several keys atomically, as the in-memory and JSON file
    /// stores do). Only flags whose remote value changed are announced. An
    /// entry with a key no flag has, or a value not of its flag's type, is
    /// left out and reported; the valid entries are applied all the same.
    /// The time of the update is recorded beside the values (``remoteUpdatedAt``).
    ///
    /// - Parameters:
    ///   - json: the payload's bytes.
    ///   - mode: whether flags the payload leaves out lose their remote value
    ///     (``FlagUpdateMode/fullState``, the default) or keep it (``FlagUpdateMode/patch``).
    /// - Returns: what changed and what was left out.
    /// - Throws: `StorageError` when the payload is not a JSON object (nothing
    ///   is applied), or the remote store fails.
    @discardableResult
    public func update(with json: some Sequence<UInt8>, mode: FlagUpdateMode = .fullState) throws(StorageError) -> FlagUpdateResult {
        try board.update(with: json, mode: mode, clearingOverrides: options.remoteUpdatesClearOverrides)
    }

    /// Applies remote values given as stored values, keyed as
    /// ``update(with:mode:)`` reads a JSON payload.
    @discardableResult
    public func update(with values: [String: StoredValue], mode: FlagUpdateMode = .fullState) throws(StorageError) -> FlagUpdateResult {
        try board.update(with: values, mode: mode, clearingOverrides: options.remoteUpdatesClearOverrides)
    }

    /// Returns once the overrides and remote values written so far are
    /// durable, where they are kept in JSON files (a remote update already
    /// is when it returns; an override is written in the background).
    /// - Throws: the first store's write error.
    public func flush() throws(StorageError) {
        try board.flush()
    }

    /// The time the last payload was applied, as recorded in ``remote``; `nil`
    /// before the first, and for a remote store fed otherwise.
    public var remoteUpdatedAt: Date? {
        board.remoteUpdatedAt
    }

    /// How long ago the last payload was applied; `nil` when none was.
    public var remoteAge: Duration? {
        remoteUpdatedAt.map { .milliseconds(Int64((Date().timeIntervalSince($0) * 1000).rounded())) }
    }
}
