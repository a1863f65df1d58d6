/// Turns a `StoredValue` back into any `Decodable` type, without a detour
/// through JSON text.
///
/// It reads what `StoredValueEncoder` writes, and is lenient where stores that
/// keep only JSON-ish text lose information:
///
/// - integers of every width read from either integer case or from a
///   `.double` holding a whole number, and are range-checked, never wrapped;
/// - `Float` and `Double` read from `.double` or from either integer case;
/// - `Date` reads from `.date` or from an ISO 8601 string, with or without
///   fractional seconds; `Data` from `.data` or a base64 string;
/// - `URL` and `UUID` read from `.string`;
/// - a missing key and a `.null` entry both decode as nil.
///
/// Every error thrown is a `StorageError` whose reason names the coding path
/// and the kind of value found, never the value itself. A number that does not
/// fit has code `.valueOutOfRange`; a value of the wrong kind, and a missing
/// key or array element, `.typeMismatch`; a string that is not a valid date,
/// base64, URL or UUID, `.invalidValue`. An error thrown by a type's own
/// `init(from:)` passes through unchanged when it is a `StorageError` and is
/// otherwise wrapped with code `.invalidValue`, keeping it as `underlyingError`.
///
/// ```swift
/// let settings = try StoredValueDecoder().decode(Settings.self, from: stored)
/// ```
package struct StoredValueDecoder: Sendable {
    /// Makes a decoder. It has no options: the leniency above is always on, so
    /// a value reads back the same whichever store kept it.
    package init() {}

    /// Decodes a value of `type` from `storedValue`.
    ///
    /// - Throws: `StorageError`, as described on the type.
    package func decode<Value: Decodable>(_ type: Value.Type, from storedValue: StoredValue) throws -> Value {
        try StoredValueDecoderImplementation.decode(type, from: storedValue, at: .root)
    }
}
