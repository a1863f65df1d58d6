/// Turns any `Encodable` value into a `StoredValue`, without a detour through
/// JSON text.
///
/// Stores keep `StoredValue`s, so going straight to one keeps integers exact
/// across the whole `Int64` and `UInt64` range and lets Foundation's leaf types
/// keep their natural form:
///
/// - `Date` becomes `.date` and `Data` becomes `.data`;
/// - `URL` becomes `.string` of its `absoluteString`, `UUID` of its `uuidString`;
/// - keyed containers become `.dictionary`, unkeyed ones `.array`, nil `.null`;
/// - a `Set`'s elements, and a dictionary's keys and values when it encodes
///   them as pairs (keys other than `String` and `Int`), are put in the
///   canonical order of stored values, so equal values are stored alike;
/// - a value that encodes nothing becomes an empty `.dictionary`.
///
/// Every error thrown is a `StorageError`. One thrown by a value's own
/// `encode(to:)` passes through unchanged; any other error it throws is
/// wrapped with code `.encodingFailed`, keeping it as `underlyingError`.
///
/// ```swift
/// let stored = try StoredValueEncoder().encode(Settings(theme: .dark, volume: 7))
/// // ["theme": "dark", "volume": 7]
/// ```
package struct StoredValueEncoder: Sendable {
    /// Makes an encoder. It has no options: the stored form of every type is
    /// fixed so that any store reads back what any other wrote.
    package init() {}

    /// Encodes `value` as a `StoredValue`.
    ///
    /// - Throws: `StorageError` with code `.encodingFailed` when the value can
    ///   not be represented (a 128-bit integer beyond 64 bits, or a value that
    ///   asks for two kinds of container), or when its `encode(to:)` fails.
    package func encode<Value: Encodable>(_ value: Value) throws -> StoredValue {
        try StoredValueEncoderImplementation.encode(value, at: .root)
    }
}
