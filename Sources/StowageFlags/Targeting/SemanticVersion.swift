/// A version as flagd's `sem_ver` reads it: Semantic Versioning 2.0.0, with
/// a leading "v" or "V" dropped and a missing minor or patch taken as 0
/// ("1" is 1.0.0, "v2.1-beta" 2.1.0-beta). Build metadata takes no part in
/// comparisons.
struct SemanticVersion: Comparable {
    let major: UInt64
    let minor: UInt64
    let patch: UInt64
    /// Dot-separated identifiers after "-"; empty for a release.
    let prerelease: [Substring]

    init?(_ text: String) {
        var version = Substring(text)
        if let first = version.first, first == "v" || first == "V" { version = version.dropFirst() }
        let numericEnd = version.firstIndex { $0 == "-" || $0 == "+" } ?? version.endIndex
        var numbers = version[..<numericEnd].split(separator: ".", omittingEmptySubsequences: false)
        while numbers.count < 3 { numbers.append("0") }
        guard numbers.count == 3, let major = Self.number(numbers[0]), let minor = Self.number(numbers[1]), let patch = Self.number(numbers[2]) else {
            return nil
        }
        (self.major, self.minor, self.patch) = (major, minor, patch)
        var rest = version[numericEnd...]
        var prerelease: [Substring] = []
        if rest.first == "-" {
            let end = rest.firstIndex(of: "+") ?? rest.endIndex
            prerelease = rest[rest.index(after: rest.startIndex)..<end].split(separator: ".", omittingEmptySubsequences: false)
            guard prerelease.allSatisfy(Self.isPrereleaseIdentifier) else { return nil }
            rest = rest[end...]
        }
        if rest.first == "+" {
            let build = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard build.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isIdentifierCharacter) }) else { return nil }
        } else if !rest.isEmpty {
            return nil
        }
        self.prerelease = prerelease
    }

    static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        if (a.major, a.minor, a.patch) != (b.major, b.minor, b.patch) { return (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
        // A release follows its pre-releases; identifiers compare numerically when both are numbers, numbers before words.
        if a.prerelease.isEmpty || b.prerelease.isEmpty { return !a.prerelease.isEmpty && b.prerelease.isEmpty }
        for (x, y) in zip(a.prerelease, b.prerelease) where x != y {
            switch (UInt64(x), UInt64(y)) {
            case (let m?, let n?): return m < n
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
        }
        return a.prerelease.count < b.prerelease.count
    }

    static func == (a: SemanticVersion, b: SemanticVersion) -> Bool {
        (a.major, a.minor, a.patch) == (b.major, b.minor, b.patch) && a.prerelease == b.prerelease
    }

    /// A numeric identifier: digits, without a leading zero.
    private static func number(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), text == "0" || text.first != "0" else { return nil }
        return UInt64(text)
    }

    private static func isPrereleaseIdentifier(_ identifier: Substring) -> Bool {
        guard !identifier.isEmpty, identifier.allSatisfy(isIdentifierCharacter) else { return false }
        let numeric = identifier.allSatisfy { $0.isASCII && $0.isNumber }
        return !numeric || identifier == "0" || identifier.first != "0"
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-")
    }
}
