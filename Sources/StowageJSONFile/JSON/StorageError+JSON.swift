public import Stowage

extension StorageError.Code {
    /// Bytes that should hold JSON text are not valid JSON.
    public static let invalidJSON = StorageError.Code("invalidJSON")
    /// The settings file was not JSON; it was moved aside and the store started empty.
    public static let corruptFile = StorageError.Code("corruptFile")
    /// In the nested key layout, a key would be both a value and the prefix of other keys.
    public static let keyConflict = StorageError.Code("keyConflict")
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
