/// A coding key for positions that have no key of the caller's own type: the
/// elements of an unkeyed container and the `super` entry of a keyed one.
struct SyntheticCodingKey: CodingKey {
    /// The key that `superEncoder()` and `superDecoder()` use, as Swift's own
    /// coders do, so that class hierarchies read back what they wrote.
    static let superKey = SyntheticCodingKey(stringValue: "super")

    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// Named the way Foundation's coders name array positions, so paths look
    /// familiar to anyone who inspects `codingPath`.
    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }
}
