public import Stowage

extension StorageError.Code {
    /// Bytes that should hold JSON text are not valid JSON.
    public static let invalidJSON = Self("invalidJSON")
}

extension StorageError {
    /// JSON text that breaks the grammar, with the place it happened.
    ///
    /// `problem` says what was expected or found without quoting the text, as a
    /// string in the file may hold a secret.
    static func invalidJSON(_ problem: String, at location: JSONSourceLocation) -> StorageError {
        StorageError(code: .invalidJSON, reason: "\(problem) at \(location).")
    }

    /// A value that JSON can not represent, named by its path and never by its contents.
    static func unserializableJSON(_ problem: String, at path: JSONValuePath) -> StorageError {
        StorageError(code: .encodingFailed, reason: "\(path.locationDescription): \(problem).")
    }
}
