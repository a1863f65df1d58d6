import StowageEnvironment

/// The `.env` parser over arbitrary text (the fuzzer's bytes, repaired to UTF-8).
///
/// Properties checked, beyond "no text traps or hangs":
///
/// - every assignment has a valid name and a line within the text, lines
///   only go forward, and a syntax error names a line within the text;
/// - line endings do not matter: the text with every line ending (`\r\n`,
///   a lone `\r` or `\n`, as the parser counts them) written as `\n` parses
///   the same, as does the text with a byte order mark in front, or with a
///   line feed after it;
/// - every assignment read can be written back as `NAME="value"`, escaping
///   `\`, `"`, `$`, CR and LF, and that text reads back as the same names and values.
package struct DotEnvParserFuzzCheck: FuzzCheck {
    package static let name = "dotenv-parser"

    /// What `${NAME}` finds when no assignment before it set `NAME`.
    private static let environment = ["HOME": "/home/fuzz", "EMPTY": "", "SPACED": " a b "]

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        let text = String(decoding: input, as: UTF8.self)
        let outcome = Self.parse(text)
        let lineCount = Self.lineCount(of: text)
        switch outcome {
        case .success(let assignments):
            var previousLine = 1
            for assignment in assignments {
                guard Self.isValidName(assignment.name) else {
                    throw PropertyViolation("an assignment to the invalid name \(String(reflecting: assignment.name))")
                }
                guard (previousLine...lineCount).contains(assignment.line) else {
                    throw PropertyViolation("an assignment on line \(assignment.line), after line \(previousLine), in a text of \(lineCount) lines")
                }
                previousLine = assignment.line
            }
            try checkWritingBack(assignments)
        case .failure(let error):
            guard (1...lineCount).contains(error.line) else {
                throw PropertyViolation("a syntax error on line \(error.line) of a text of \(lineCount) lines: \(error.problem)")
            }
        }

        let variants = [
            ("every line ending written as LF", Self.normalizingLineEndings(text)),
            ("a byte order mark in front", text.unicodeScalars.first == "\u{FEFF}" ? text : "\u{FEFF}" + text),
            ("a line feed after it", text + "\n"),
        ]
        for (change, variant) in variants where Self.parse(variant) != outcome {
            throw PropertyViolation("the text parses differently with \(change)")
        }
    }

    private func checkWritingBack(_ assignments: [DotEnvParser.Assignment]) throws(PropertyViolation) {
        let written = assignments.map { "\($0.name)=\"\(Self.escaped($0.value))\"\n" }.joined()
        switch Self.parse(written) {
        case .success(let reread):
            guard reread.map(\.name) == assignments.map(\.name), reread.map(\.value) == assignments.map(\.value) else {
                throw PropertyViolation("assignments written back in double quotes read back differently")
            }
        case .failure(let error):
            throw PropertyViolation("assignments written back in double quotes do not parse: line \(error.line): \(error.problem)")
        }
    }

    private static func parse(_ text: String) -> Result<[DotEnvParser.Assignment], DotEnvParser.SyntaxError> {
        Result { () throws(DotEnvParser.SyntaxError) in
            try DotEnvParser.parse(text) { name, assignedSoFar in assignedSoFar[name] ?? environment[name] }
        }
    }

    private static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "." || scalar == "-"
        }
    }

    /// The parser's line endings: `\r\n`, or a `\r` or `\n` on its own.
    private static func normalizingLineEndings(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCarriageReturn {
                previousWasCarriageReturn = false
                continue
            }
            previousWasCarriageReturn = scalar == "\r"
            result.append(scalar == "\r" ? "\n" : scalar)
        }
        return String(result)
    }

    private static func lineCount(of text: String) -> Int {
        1 + normalizingLineEndings(text).unicodeScalars.count { $0 == "\n" }
    }

    private static func escaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "$": result += "\\$"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
