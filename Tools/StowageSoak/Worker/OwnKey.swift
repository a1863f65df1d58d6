import Stowage
import StowageJSONFile

/// A key only one thread writes, through a typed optional wrapper, so the
/// store must always show the last value that thread wrote, and the file must
/// hold it at the end.
struct OwnKey: Sendable {
    let key: String
    private let assign: @Sendable (Int) -> StoredValue?
    private let clear: @Sendable () -> Void
    private let load: @Sendable () -> StoredValue?

    /// Sets the value made from `sequence` through the wrapper.
    /// - Returns: the stored form the file must hold.
    func set(_ sequence: Int) -> StoredValue? { assign(sequence) }

    /// Removes the key by assigning `nil` to the wrapper.
    func remove() { clear() }

    /// The wrapper's value in stored form; `nil` when absent.
    func read() -> StoredValue? { load() }

    /// An own key of one of four value types, chosen by `index`, so plain
    /// numbers, strings that need escaping, arrays and nested objects all
    /// travel through the file.
    static func make(key: String, index: Int, process: Int, thread: Int, in store: JSONFileStore) -> OwnKey {
        switch index % 4 {
        case 0: make(key: key, in: store) { $0 }
        case 1: make(key: key, in: store) { "p\(process)t\(thread) #\($0): naïve \"quoted\" \\ ☃ 🚀 \u{2028} tab\tend" }
        case 2: make(key: key, in: store) { [$0, $0 &+ 1, -$0] }
        default: make(key: key, in: store) { Marker(process: process, thread: thread, sequence: $0, note: "ü\n\($0)") }
        }
    }

    private static func make<Value: Storable>(key: String, in store: JSONFileStore, value: @escaping @Sendable (Int) -> Value) -> OwnKey {
        let wrapper = Stored<JSONFileStore, Value?>(key, in: store)
        return OwnKey(
            key: key,
            assign: { sequence in
                let newValue = value(sequence)
                wrapper.wrappedValue = newValue
                return try? newValue.storedValue()
            },
            clear: { wrapper.wrappedValue = nil },
            load: { wrapper.wrappedValue.flatMap { try? $0.storedValue() } }
        )
    }
}

/// A `Codable` value, kept in the file as a nested object.
struct Marker: Codable, Storable, Equatable {
    var process: Int
    var thread: Int
    var sequence: Int
    var note: String
}
