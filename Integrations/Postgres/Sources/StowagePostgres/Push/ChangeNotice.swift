import Stowage
import StowageJSON

/// What one notification on a store's channel says changed, as the
/// tables' trigger writes it (see `PostgresSchema.createVersion2`).
///
/// A notice identifies a change and carries no value: the receiver reads the
/// row itself, so a notice can never be too long, and a value never travels
/// in a notification, where any listener of the channel could see it;
/// unless the database opted in (`stowage.notices_carry_values`), when a
/// write's notice carries its value's JSON text too, if it fits.
enum ChangeNotice: Sendable, Equatable {
    /// A row was written (or deleted) and got `revision` (or had it); `value`
    /// is its JSON text when the notice carries it.
    case row(namespace: String, key: String, revision: Int64, deleted: Bool, value: String? = nil)
    /// Something in the namespace changed that the notice could not name: read all of it again.
    case namespace(String)
    /// Something changed in any namespace (a `TRUNCATE`, or a notice this release can not read).
    case everything

    init(payload: String) {
        guard case .dictionary(let fields)? = try? StoredValue(jsonText: payload),
            case .string(let namespace)? = fields["namespace"]
        else {
            self = .everything
            return
        }
        guard case .string(let key)? = fields["key"], let revision = fields["revision"].flatMap(Self.integer) else {
            self = .namespace(namespace)
            return
        }
        let deleted = if case .bool(true)? = fields["deleted"] { true } else { false }
        let value = if case .string(let text)? = fields["value"], !deleted { text } else { String?.none }
        self = .row(namespace: namespace, key: key, revision: revision, deleted: deleted, value: value)
    }

    private static func integer(_ value: StoredValue) -> Int64? {
        switch value {
        case .signedInteger(let number): number
        case .unsignedInteger(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// Whether the notice may concern a store of `namespace`.
    func concerns(namespace store: String) -> Bool {
        switch self {
        case .row(let namespace, _, _, _, _), .namespace(let namespace): namespace == store
        case .everything: true
        }
    }
}
