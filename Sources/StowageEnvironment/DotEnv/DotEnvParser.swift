import Stowage

/// Reads `.env` text: `NAME=value` lines, as the common dotenv tools do.
///
/// - Blank lines and lines starting with `#` are skipped; `export ` before a
///   name is allowed and ignored. Names are letters, digits, `_`, `.` and `-`,
///   not starting with a digit. Spaces around `=` are allowed.
/// - Unquoted values end at the line's end or at a `#` after whitespace (a
///   comment); surrounding whitespace is dropped.
/// - `'single'` and `` `backtick` `` quotes keep their text exactly.
/// - `"double"` quotes understand `\n`, `\t`, `\r`, `\"`, `\\` and `\$`; any
///   other backslash is kept as written.
/// - Quoted values may span lines; after the closing quote only a comment may follow.
/// - `${NAME}` in unquoted and double-quoted values is replaced by the value
///   `lookup` gives (empty when it gives none), and `${NAME:-fallback}` by
///   `fallback` when that value is missing or empty. A `$` not followed by `{`
///   is kept.
/// - CRLF line endings read as LF, and a leading byte order mark is skipped.
/// - A value that expansions make longer than `maximumExpandedValueLength`
///   bytes is an error.
///
/// `package` so the fuzz targets (`Tools/StowageFuzzing`) can call it directly.
package struct DotEnvParser {
    /// One assignment, in file order; a later one for the same name wins.
    package struct Assignment: Equatable {
        package var name: String
        package var value: String
        package var line: Int
    }

    /// A syntax error: what was wrong, and on which line.
    package struct SyntaxError: Error, Equatable {
        package var line: Int
        package var problem: String
    }

    /// The longest value, in UTF-8 bytes, that `${NAME}` expansions may build:
    /// Linux's limit for one environment string (`MAX_ARG_STRLEN`). Without a
    /// limit, a few hundred bytes of `A=${A}${A}` lines double a value on every
    /// line and exhaust memory.
    package static let maximumExpandedValueLength = 131_072

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1

    init(_ text: String) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        self.scalars = scalars
    }

    /// Every assignment in the text.
    /// - Parameter lookup: the value of a variable for `${NAME}`, given the
    ///   assignments read so far (the caller decides whether those or the
    ///   environment win).
    package static func parse(
        _ text: String, lookup: (_ name: String, _ assignedSoFar: [String: String]) -> String?
    ) throws(SyntaxError) -> [Assignment] {
        var parser = DotEnvParser(text)
        var assignments: [Assignment] = []
        var assigned: [String: String] = [:]
        while let assignment = try parser.nextAssignment(lookup: { lookup($0, assigned) }) {
            assignments.append(assignment)
            assigned[assignment.name] = assignment.value
        }
        return assignments
    }

    /// Every assignment in the text, skipping each line that is not one
    /// (`KEY: value`, a name without `=`, a quoted name, a quote never
    /// closed), as python-dotenv and the Node dotenv package do.
    /// - Returns: the assignments, and why each skipped line was skipped.
    package static func parseSkippingMalformedLines(
        _ text: String, lookup: (_ name: String, _ assignedSoFar: [String: String]) -> String?
    ) -> (assignments: [Assignment], skippedLines: [SyntaxError]) {
        var parser = DotEnvParser(text)
        var assignments: [Assignment] = []
        var skipped: [SyntaxError] = []
        var assigned: [String: String] = [:]
        while true {
            parser.skipBlankAndCommentLines()
            let (start, startLine) = (parser.index, parser.line)
            do {
                guard let assignment = try parser.nextAssignment(lookup: { lookup($0, assigned) }) else { break }
                assignments.append(assignment)
                assigned[assignment.name] = assignment.value
            } catch {
                skipped.append(SyntaxError(line: startLine, problem: error.problem))
                // Only the line the assignment started on is dropped; the lines after it are read again.
                parser.index = start
                parser.line = startLine
                parser.skipToLineEnd()
            }
        }
        return (assignments, skipped)
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipBlankAndCommentLines() {
        while true {
            skipSpaces()
            guard let scalar = current else { return }
            if isLineEnd(scalar) {
                consumeLineEnd()
            } else if scalar == "#" {
                skipToLineEnd()
            } else {
                return
            }
        }
    }

    private mutating func nextAssignment(lookup: (String) -> String?) throws(SyntaxError) -> Assignment? {
        skipBlankAndCommentLines()
        guard current != nil else { return nil }
        let startLine = line
        var name = readName()
        if name == "export", let scalar = current, scalar == " " || scalar == "\t" {
            skipSpaces()
            name = readName()
        }
        guard !name.isEmpty else { throw SyntaxError(line: line, problem: "expected a variable name") }
        skipSpaces()
        guard current == "=" else { throw SyntaxError(line: line, problem: "expected \"=\" after \(name)") }
        index += 1
        skipSpaces()
        let value: String
        switch current {
        case "'", "`":
            value = try readLiteralQuoted()
            try finishQuotedLine()
        case "\"":
            value = try readDoubleQuoted(lookup: lookup)
            try finishQuotedLine()
        default:
            value = try readUnquoted(lookup: lookup)
        }
        return Assignment(name: name, value: value, line: startLine)
    }

    private mutating func readName() -> String {
        var name = String.UnicodeScalarView()
        while let scalar = current, Self.isNameScalar(scalar, isFirst: name.isEmpty) {
            name.append(scalar)
            index += 1
        }
        return String(name)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar, isFirst: Bool) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "_": true
        case "0"..."9", ".", "-": !isFirst
        default: false
        }
    }

    private mutating func readLiteralQuoted() throws(SyntaxError) -> String {
        let quote = scalars[index]
        let startLine = line
        index += 1
        var value = String.UnicodeScalarView()
        while let scalar = current {
            if scalar == quote {
                index += 1
                return String(value)
            }
            appendNormalizingLineEnd(to: &value)
        }
        throw SyntaxError(line: startLine, problem: "the value quoted with \(quote) is never closed")
    }

    private mutating func readDoubleQuoted(lookup: (String) -> String?) throws(SyntaxError) -> String {
        let startLine = line
        index += 1
        var value = String.UnicodeScalarView()
        while let scalar = current {
            switch scalar {
            case "\"":
                index += 1
                return String(value)
            case "\\" where index + 1 < scalars.count:
                let escaped = scalars[index + 1]
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "\"", "\\", "$": value.append(escaped)
                default:
                    value.append("\\")
                    index += 1
                    continue
                }
                index += 2
            case "$" where index + 1 < scalars.count && scalars[index + 1] == "{":
                try appendExpansion(lookup: lookup, to: &value)
            default:
                appendNormalizingLineEnd(to: &value)
            }
        }
        throw SyntaxError(line: startLine, problem: "the value quoted with \" is never closed")
    }

    private mutating func readUnquoted(lookup: (String) -> String?) throws(SyntaxError) -> String {
        var value = String.UnicodeScalarView()
        while let scalar = current, !isLineEnd(scalar) {
            if scalar == "#", value.last.map({ $0 == " " || $0 == "\t" }) ?? true {
                skipToLineEnd()
                break
            }
            if scalar == "$", index + 1 < scalars.count, scalars[index + 1] == "{" {
                try appendExpansion(lookup: lookup, to: &value)
            } else {
                value.append(scalar)
                index += 1
            }
        }
        while let last = value.last, last == " " || last == "\t" { value.removeLast() }
        return String(value)
    }

    /// Reads `${NAME}` or `${NAME:-fallback}` and appends its value, unless the
    /// value would grow beyond `maximumExpandedValueLength`.
    private mutating func appendExpansion(lookup: (String) -> String?, to value: inout String.UnicodeScalarView) throws(SyntaxError) {
        let startLine = line
        let expansion = try readExpansion(lookup: lookup)
        guard String(value).utf8.count + expansion.utf8.count <= Self.maximumExpandedValueLength else {
            throw SyntaxError(
                line: startLine,
                problem: "a ${…} expansion makes the value longer than \(Self.maximumExpandedValueLength) bytes, "
                    + "more than an environment variable may hold"
            )
        }
        value.append(contentsOf: expansion.unicodeScalars)
    }

    /// Reads `${NAME}` or `${NAME:-fallback}` and gives its value.
    private mutating func readExpansion(lookup: (String) -> String?) throws(SyntaxError) -> String {
        let startLine = line
        index += 2
        let name = readName()
        guard !name.isEmpty else { throw SyntaxError(line: startLine, problem: "expected a variable name after \"${\"") }
        var fallback: String?
        if current == ":", index + 1 < scalars.count, scalars[index + 1] == "-" {
            index += 2
            var text = String.UnicodeScalarView()
            while let scalar = current, scalar != "}", !isLineEnd(scalar) {
                text.append(scalar)
                index += 1
            }
            fallback = String(text)
        }
        guard current == "}" else { throw SyntaxError(line: startLine, problem: "\"${\(name)\" is never closed with \"}\"") }
        index += 1
        let value = lookup(name)
        if let fallback, value?.isEmpty ?? true { return fallback }
        return value ?? ""
    }

    /// After a closing quote, only spaces and a comment may follow on the line.
    private mutating func finishQuotedLine() throws(SyntaxError) {
        skipSpaces()
        guard let scalar = current, !isLineEnd(scalar) else { return }
        guard scalar == "#" else { throw SyntaxError(line: line, problem: "unexpected text after the closing quote") }
        skipToLineEnd()
    }

    private mutating func appendNormalizingLineEnd(to value: inout String.UnicodeScalarView) {
        let scalar = scalars[index]
        if isLineEnd(scalar) {
            consumeLineEnd()
            value.append("\n")
        } else {
            value.append(scalar)
            index += 1
        }
    }

    private func isLineEnd(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    private mutating func consumeLineEnd() {
        if current == "\r" { index += 1 }
        if current == "\n" { index += 1 }
        line += 1
    }

    private mutating func skipSpaces() {
        while let scalar = current, scalar == " " || scalar == "\t" { index += 1 }
    }

    private mutating func skipToLineEnd() {
        while let scalar = current, !isLineEnd(scalar) { index += 1 }
    }
}
