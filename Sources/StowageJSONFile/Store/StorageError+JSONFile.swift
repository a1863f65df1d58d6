public import Stowage

extension StorageError.Code {
    /// The settings file was not JSON; it was moved aside and the store started empty.
    public static let corruptFile = StorageError.Code("corruptFile")
}
