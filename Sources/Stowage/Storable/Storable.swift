/// A value that can be kept in any store.
///
/// A conforming type says how it becomes a `StoredValue` and how it is read
/// back. Stowage ships conformances for the standard scalar types, Foundation's
/// `Data`, `Date`, `URL` and `UUID`, optionals and collections of storable
/// values. `RawRepresentable` and `Codable` types get the conformance for free:
///
/// ```swift
/// enum Theme: String, Storable { case light, dark }
/// struct Profile: Codable, Storable { var name = "" }
/// ```
///
/// Decoding never traps: a value of the wrong shape or out of range throws a
/// ``StorageError`` that says what was expected.
public protocol Storable: Sendable {
    /// Reads a value back from its stored form.
    /// - Throws: ``StorageError`` when `storedValue` does not hold a valid `Self`.
    init(storedValue: StoredValue) throws

    /// The stored form of this value.
    /// - Throws: ``StorageError`` when the value can not be represented (an
    ///   `Int128` beyond 64 bits, a `Codable` type whose `encode(to:)` fails).
    func storedValue() throws -> StoredValue
}
