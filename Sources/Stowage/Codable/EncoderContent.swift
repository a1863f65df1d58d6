/// What an encoder has been asked to produce so far.
enum EncoderContent {
    /// Nothing yet; a value that encodes nothing becomes an empty dictionary.
    case empty
    case single(StoredValue)
    case keyed(EncodingDictionaryBuffer)
    case unkeyed(EncodingArrayBuffer)
    /// The value asked for two kinds of container. The protocols give no way
    /// to throw at that point, so the error waits until the value is resolved.
    case conflicting(StorageError)
}
