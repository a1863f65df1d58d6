extension StorageError {
    /// A stored value has another shape than the one the type asked for.
    static func codingTypeMismatch(expected: String, found value: StoredValue, at path: CodingPathNode) -> StorageError {
        codingTypeMismatch(expected: expected, found: value.kindDescription, at: path)
    }

    /// A type mismatch whose found value needs more words than its kind, still
    /// without quoting it.
    static func codingTypeMismatch(expected: String, found description: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .typeMismatch,
            reason: "\(path.locationDescription): expected \(expected), found \(description)."
        )
    }

    /// A keyed container has no entry for the key asked for.
    ///
    /// Reported as a type mismatch: the stored dictionary does not have the
    /// shape the type expects.
    static func codingMissingKey(expected: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .typeMismatch,
            reason: "\(path.locationDescription): expected \(expected), but the key is missing."
        )
    }

    /// An unkeyed container was asked for more elements than the array holds.
    static func codingMissingElement(expected: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .typeMismatch,
            reason: "\(path.locationDescription): expected \(expected), but the array has no more elements."
        )
    }

    /// A stored number does not fit the type asked for.
    static func codingOutOfRange(_ value: StoredValue, target: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .valueOutOfRange,
            reason: "\(path.locationDescription): found \(value.kindDescription) outside the range of \(target)."
        )
    }

    /// A stored value has the right case but contents that can not be read,
    /// described without quoting them.
    static func codingInvalidContents(expected: String, found description: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .invalidValue,
            reason: "\(path.locationDescription): expected \(expected), found \(description)."
        )
    }

    /// A type's own `init(from:)` threw something other than a `StorageError`.
    static func codingDecodingFailed<Value>(_ valueType: Value.Type, underlyingError: any Error, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .invalidValue,
            reason: "\(path.locationDescription): \(Value.self) could not be decoded; "
                + "its init(from:) threw an error of type \(type(of: underlyingError)).",
            underlyingError: underlyingError
        )
    }

    /// A type's own `encode(to:)` threw something other than a `StorageError`.
    static func codingEncodingFailed<Value>(_ valueType: Value.Type, underlyingError: any Error, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .encodingFailed,
            reason: "\(path.locationDescription): \(Value.self) could not be encoded; "
                + "its encode(to:) threw an error of type \(type(of: underlyingError)).",
            underlyingError: underlyingError
        )
    }

    /// A value can not be represented by any `StoredValue` case.
    static func codingUnrepresentable(_ description: String, at path: CodingPathNode) -> StorageError {
        StorageError(
            code: .encodingFailed,
            reason: "\(path.locationDescription): \(description)."
        )
    }
}
