/// The one error type Stowage throws and reports.
///
/// Every message is a full sentence that names the key (when there is one) and
/// what was expected. Stowage's own messages describe the kind of a bad value
/// ("found a string") and never quote it, so a secret can not leak through an
/// error; a store may quote a value it knows is not secret, as the
/// environment store does for a variable that does not parse.
///
/// ```swift
/// do {
///     let port: Int? = try store.value(forKey: "server.port")
/// } catch let error as StorageError where error.code == .typeMismatch {
///     print(error.message)
/// }
/// ```
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct rather than an enum, so a code added later
    /// breaks no `switch`; Stowage's stores add theirs (`.corruptFile`), and a
    /// store outside Stowage uses these, `.storeFailure` for its own failures.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String

        package init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A stored value has another shape than the type asked for.
        public static let typeMismatch = Code("typeMismatch")
        /// A stored number does not fit the type asked for.
        public static let valueOutOfRange = Code("valueOutOfRange")
        /// A stored value has the right shape but invalid contents (a bad date string, say).
        public static let invalidValue = Code("invalidValue")
        /// A value could not be turned into a `StoredValue`.
        public static let encodingFailed = Code("encodingFailed")
        /// The store itself failed to read or write.
        public static let storeFailure = Code("storeFailure")
        /// The store does not accept writes.
        public static let readOnly = Code("readOnly")
        /// Two keys can not both be kept as asked: in a nested layout one would
        /// be both a value and the prefix of others; in the environment two keys
        /// would name the same variable.
        public static let keyConflict = Code("keyConflict")
        /// The store can not do what was asked, such as listing its keys.
        public static let unsupported = Code("unsupported")
        /// A write went to a layer of a `LayeredStore` that a higher layer
        /// shadows, so reads still give the higher layer's value.
        public static let shadowedWrite = Code("shadowedWrite")
        /// A migration could not convert a stored value; the old value is kept.
        public static let migrationFailed = Code("migrationFailed")
        /// The store waited as long as it was allowed to (for a lock another
        /// process held, say) and gave up; nothing was changed.
        public static let timedOut = Code("timedOut")
    }

    public var code: Code
    /// The key being read or written, when the failure concerns one key.
    public var key: String?
    /// The ``UnderlyingStorage/storeName`` of the store that met the failure,
    /// when it is known: Stowage fills it in before it reports an error, so a
    /// log line says which of a program's stores it is about.
    public var storeName: String?
    /// What went wrong, as a sentence without the key; `message` adds the key.
    public var reason: String
    /// The error that caused this one, if any.
    public var underlyingError: (any Error)?

    public init(code: Code, key: String? = nil, reason: String, underlyingError: (any Error)? = nil, storeName: String? = nil) {
        self.code = code
        self.key = key
        self.reason = reason
        self.underlyingError = underlyingError
        self.storeName = storeName
    }

    /// The full sentence: the key, then the reason.
    public var message: String {
        guard let key else { return reason }
        return "Key \"\(key)\": \(reason)"
    }

    public var description: String {
        var text = "StorageError(\(code))"
        if let storeName { text += " in \(storeName)" }
        text += ": \(message)"
        if let underlyingError { text += " (underlying error: \(underlyingError))" }
        return text
    }

    /// The same error attributed to `key`, unless it already names one.
    @usableFromInline package func attributed(toKey key: String) -> StorageError {
        guard self.key == nil else { return self }
        var copy = self
        copy.key = key
        return copy
    }

    /// The same error attributed to the store named `storeName`, unless it already names one.
    @usableFromInline package func attributed(toStore storeName: String) -> StorageError {
        guard self.storeName == nil else { return self }
        var copy = self
        copy.storeName = storeName
        return copy
    }

    /// Wraps any error as a `StorageError` about `key`, keeping a `StorageError` as it is.
    @usableFromInline package static func wrapping(_ error: any Error, key: String, code: Code, reason: String) -> StorageError {
        if let storageError = error as? StorageError { return storageError.attributed(toKey: key) }
        return StorageError(code: code, key: key, reason: reason, underlyingError: error)
    }
}
