import StowageJSON

/// A value as JSON text, for messages about flag values: a payload's wrong
/// value is worth quoting (flag values are settings, not secrets), but
/// only the start of a long one.
enum FlagValueText {
    static let maximumLength = 80

    static func render(_ value: StoredValue) -> String {
        guard let bytes = try? JSONSerializer(formatting: .compact).serialize(value) else { return value.description }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.count > maximumLength else { return text }
        return text.prefix(maximumLength) + "…"
    }

    /// What a decoding error says went wrong, in parentheses after a space, or nothing.
    static func detail(of error: any Error) -> String {
        guard let reason = (error as? StorageError)?.reason, !reason.isEmpty else { return "" }
        let sentence = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
        return " (\(sentence))"
    }
}
