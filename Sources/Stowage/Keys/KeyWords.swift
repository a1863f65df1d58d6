/// Splits keys and type names into words, for key strategies and the
/// environment store's variable names, so that both agree on what a word is.
package enum KeyWords {
    /// The words of `text`: `.`, `-`, `_`, `/` and spaces separate words, and so
    /// do the word boundaries of camelCase (`maxHTTPConnections` is `max`,
    /// `HTTP`, `Connections`), with plural acronyms kept whole (`userIDs` is
    /// `user`, `IDs`); digits stay with the word before them.
    package static func words(in text: some StringProtocol) -> [Substring] {
        var words: [Substring] = []
        for segment in Substring(text).split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" || $0 == "/" || $0 == " " }) {
            words.append(contentsOf: camelCaseWords(of: segment))
        }
        return words
    }

    /// Splits `maxHTTPConnections` into `max`, `HTTP`, `Connections`: a
    /// word starts at an upper-case letter after a lower-case letter or a
    /// digit, and at the last upper-case letter of a run followed by a
    /// lower-case letter.
    private static func camelCaseWords(of segment: Substring) -> [Substring] {
        var words: [Substring] = []
        var wordStart = segment.startIndex
        var previous: Character?
        var index = segment.startIndex
        while index < segment.endIndex {
            let character = segment[index]
            let next = segment.index(after: index)
            if let previous, character.isUppercase {
                let afterLowerOrDigit = previous.isLowercase || previous.isNumber
                let endsAcronym =
                    previous.isUppercase && next < segment.endIndex && segment[next].isLowercase
                    && !isPluralEnding(of: segment, at: next)
                if afterLowerOrDigit || endsAcronym {
                    words.append(segment[wordStart..<index])
                    wordStart = index
                }
            }
            previous = character
            index = next
        }
        words.append(segment[wordStart...])
        return words
    }

    /// Whether the lower-case letter at `index` is the `s` of a plural
    /// acronym (`userIDs`, `URLsByHost`): the `s` ends the word.
    private static func isPluralEnding(of segment: Substring, at index: Substring.Index) -> Bool {
        guard segment[index] == "s" else { return false }
        let after = segment.index(after: index)
        return after == segment.endIndex || segment[after].isUppercase || segment[after].isNumber
    }
}
