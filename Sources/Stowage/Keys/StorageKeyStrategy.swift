/// How a typed key's name is built from the groups it is declared in: the
/// words of each part in a case style, joined by a separator, after an
/// optional prefix.
///
/// ```swift
/// StorageKeyStrategy(separator: ".", caseStyle: .kebabCase, prefix: "app")
/// // Keys.Network.requestTimeout is "app.network.request-timeout"
/// ```
public struct StorageKeyStrategy: Sendable, Hashable {
    /// How each part of a key is written.
    public enum CaseStyle: Sendable {
        /// As written in the code; type names start with a lower-case letter
        /// (`HTTPClient` is `httpClient`).
        case asWritten
        /// Lower-case words joined by `-`: `request-timeout`.
        case kebabCase
        /// Lower-case words joined by `_`: `request_timeout`.
        case snakeCase
    }

    /// What joins the parts of a key: `.` gives `network.timeout`.
    public var separator: String
    public var caseStyle: CaseStyle
    /// The first part of every key, written as given; `nil` for none.
    public var prefix: String?

    public init(separator: String = ".", caseStyle: CaseStyle = .asWritten, prefix: String? = nil) {
        self.separator = separator
        self.caseStyle = caseStyle
        self.prefix = prefix
    }

    /// The key made of `parts`, after the prefix.
    package func key(joining parts: [String]) -> String {
        ((prefix.map { [$0] } ?? []) + parts).joined(separator: separator)
    }

    /// `part` in this strategy's case style.
    package func styled(_ part: String) -> String {
        caseStyle.apply(to: part)
    }

    /// A type name as a key part: its first word in lower case, then styled.
    func styled(typeName: String) -> String {
        let words = KeyWords.words(in: typeName)
        guard let first = words.first else { return styled(typeName) }
        return styled(first.lowercased() + words.dropFirst().joined())
    }
}

extension StorageKeyStrategy.CaseStyle {
    /// `part` written in this style; the flag module styles one name in a
    /// style of its own with it, as a flag or group declared with one asks.
    package func apply(to part: String) -> String {
        switch self {
        case .asWritten: part
        case .kebabCase: KeyWords.words(in: part).map { $0.lowercased() }.joined(separator: "-")
        case .snakeCase: KeyWords.words(in: part).map { $0.lowercased() }.joined(separator: "_")
        }
    }
}
