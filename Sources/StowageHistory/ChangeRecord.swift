#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Stowage

/// One entry of a store's history: a committed change of a key, or a change
/// that was asked for and refused.
public struct ChangeRecord: Sendable, Hashable, Identifiable {
    /// What the entry records.
    public enum Kind: String, Sendable, Hashable {
        /// The key's value changed (set, removed, or set again to the same value).
        case change
        /// Someone asked to change the key and was refused (``ChangeRecord/reason`` says why); nothing changed.
        case refusal
    }

    /// Increases with each entry the store records, so it orders them.
    public var id: Int64
    public var kind: Kind
    public var key: String
    /// The value before the change; `nil` when the key had none, or when it is secret.
    public var oldValue: StoredValue?
    /// The value after the change; `nil` when the change removed it, or when it is secret.
    public var newValue: StoredValue?
    /// Whether the key had a value before the change.
    public var hadValue: Bool
    /// Whether the key has a value after the change.
    public var hasValue: Bool
    /// The key is secret: the store recorded that it changed, not its values.
    public var isRedacted: Bool
    /// When the change was committed (or refused).
    public var date: Date
    /// Who the writer said made it (``ChangeAuthor``, or a store's own setting); `nil` when it said nothing.
    public var author: String?
    /// What the store knows of the writer without being told: for a
    /// database, its role and application (`"role ops, application psql"`).
    public var origin: String
    /// Why a refusal was refused; `nil` for a change.
    public var reason: String?

    public init(
        id: Int64, kind: Kind = .change, key: String, oldValue: StoredValue?, newValue: StoredValue?, hadValue: Bool, hasValue: Bool,
        isRedacted: Bool = false, date: Date, author: String?, origin: String, reason: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.hadValue = hadValue
        self.hasValue = hasValue
        self.isRedacted = isRedacted
        self.date = date
        self.author = author
        self.origin = origin
        self.reason = reason
    }

    /// Who made the change: the author when one was given, otherwise the origin.
    public var madeBy: String { author ?? origin }
}
