import Synchronization

/// The hand-written alternative to a wrapper: an `Int` in a final class,
/// behind a `Mutex`, as STYLE.md asks every mutable state to be kept.
final class LockedCounter: Sendable {
    private let value: Mutex<Int>

    init(_ value: Int) {
        self.value = Mutex(value)
    }

    func read() -> Int {
        value.withLock { $0 }
    }

    func write(_ newValue: Int) {
        value.withLock { $0 = newValue }
    }
}

/// The hand-written alternative to a store: a dictionary behind a `Mutex`.
final class LockedDictionary: Sendable {
    private let entries: Mutex<[String: Int]>

    init(_ entries: [String: Int]) {
        self.entries = Mutex(entries)
    }

    func value(forKey key: String) -> Int? {
        entries.withLock { $0[key] }
    }

    func setValue(_ value: Int, forKey key: String) {
        entries.withLock { $0[key] = value }
    }

    /// Every entry at one moment.
    func copy() -> [String: Int] {
        entries.withLock { $0 }
    }
}
