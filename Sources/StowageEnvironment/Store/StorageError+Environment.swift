public import Stowage

extension StorageError.Code {
    /// A `.env` file breaks the dotenv syntax; the message names the file and line.
    public static let invalidDotEnv = StorageError.Code("invalidDotEnv")
}
