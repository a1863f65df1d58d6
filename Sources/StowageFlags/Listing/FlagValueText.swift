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

    /// Why a value is not of `type`: what the type takes, or, for a type the
    /// pole knows no shape of (a `Codable` value), what decoding it found.
    static func why(_ type: FlagType, error: any Error) -> String {
        guard case .other = type.kind else { return ", which takes \(type.expectation)" }
        guard let reason = (error as? StorageError)?.reason, !reason.isEmpty else { return "" }
        return " (\(reason.hasSuffix(".") ? String(reason.dropLast()) : reason))"
    }
}
