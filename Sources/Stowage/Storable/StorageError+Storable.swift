/// Errors the `Storable` conformances share.
extension StorageError {
    /// A stored value of the wrong shape for `type`.
    package static func typeMismatch<Value>(expected type: Value.Type, found value: StoredValue, detail: String? = nil) -> StorageError {
        var reason = "expected \(type), found \(value.kindDescription)"
        if let detail { reason += " (\(detail))" }
        return StorageError(code: .typeMismatch, reason: reason + ".")
    }
}

extension StorageError {
    /// Adds where in a collection the failure happened.
    package func prefixingReason(_ prefix: String) -> StorageError {
        var copy = self
        copy.reason = prefix + reason
        return copy
    }
}
