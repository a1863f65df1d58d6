public import Stowage

/// What observers of two keys saw: their own key's value, and the other
/// key's, read from inside the observer. Keys changed together are announced
/// one after another, so an observer of the first that reads the second's
/// old value shows a change becoming visible in halves.
public final class Sightings: Sendable {
    private let seen = Collected<String>()

    public init() {}

    public func watch<Store: UnderlyingStorage>(
        _ first: StorageReference<Store, String>, _ second: StorageReference<Store, String>
    ) -> [ObservationToken] {
        [
            first.observe { value in self.seen.append("\(first.key)=\(value ?? "nil") saw \(second.key)=\(second.value ?? "nil")") },
            second.observe { value in self.seen.append("\(second.key)=\(value ?? "nil") saw \(first.key)=\(first.value ?? "nil")") },
        ]
    }

    public var all: [String] { seen.all }
}
