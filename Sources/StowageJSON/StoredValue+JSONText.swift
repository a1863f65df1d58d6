public import Stowage

extension StoredValue {
    /// The compact JSON text the JSON file store writes for this value.
    ///
    /// Public so that a store outside this package that keeps values as text
    /// (a database column, say) keeps them as exactly as the file store does:
    /// integers from `Int64.min` to `UInt64.max` exactly, a double in the
    /// shortest form that reads back to it and always with a fraction
    /// (`-0.0` keeps its sign), object keys sorted, so one value always gives
    /// the same text; `.date` becomes ISO 8601 text with milliseconds and
    /// `.data` Base64 text, which `Date` and `Data` read back.
    /// - Throws: `StorageError` (`.encodingFailed`) for NaN or an infinity,
    ///   which JSON can not hold, a date outside the years 0 to 99,999, or
    ///   nesting deeper than `maximumDepth`.
    public func jsonText(maximumDepth: Int = 512) throws(StorageError) -> String {
        let bytes = try JSONSerializer(formatting: .compact, maximumDepth: maximumDepth).serialize(self)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads JSON text, as the JSON file store reads its file: a number with
    /// a fraction or an exponent is a `.double`, any other an integer.
    /// - Throws: `StorageError` (`.invalidJSON`) saying where the text is not
    ///   JSON, or nested deeper than `maximumDepth`.
    public init(jsonText: String, maximumDepth: Int = 512) throws(StorageError) {
        self = try JSONParser(maximumDepth: maximumDepth).parse(Array(jsonText.utf8))
    }
}
