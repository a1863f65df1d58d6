import Stowage
import StowageFlags

/// The flags an endpoint serves, whatever the pole's container: what a bulk
/// evaluation lists, how one key is evaluated, and what tells it that an
/// evaluation may have changed.
struct ServedFlags: Sendable {
    /// Every flag a bulk evaluation lists: the declared ones and the ones
    /// only configured, by key.
    let keys: @Sendable () -> [String]
    let evaluate: @Sendable (_ key: String, _ context: EvaluationContext) -> FlagEvaluation<StoredValue?>
    /// The flag set's metadata, which a bulk evaluation carries.
    let metadata: @Sendable () -> [String: StoredValue]
    /// Observes every store the flags read: an override, a payload, a push from a fleet.
    let observe: @Sendable (_ handler: @escaping @Sendable () -> Void) -> ObservationToken

    init<Container>(_ pole: FlagPole<Container>) {
        keys = { Set(pole.definitions.map(\.key)).union(pole.configurations.keys).sorted() }
        evaluate = { pole.details(forKey: $0, for: $1) }
        metadata = { pole.configurationMetadata }
        observe = { handler in pole.store.observe { _ in handler() } }
    }
}
