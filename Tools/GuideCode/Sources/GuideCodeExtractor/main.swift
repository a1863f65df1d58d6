// Writes the ```swift blocks of a Markdown guide, in order, as the body of
// one async function, for the GuideCode plugin. A guide's blocks share one
// scope, as they read: a later block uses what an earlier one declared.
//
// The code is made checkable as Scripts/guide-output.py's `generate` makes the
// root's guides: each `print(` becomes `guidePrint(#line, `, which records the
// guide line that printed in the file STOWAGE_GUIDE_PRINTS names (a plain print
// without it), and `#sourceLocation` directives give the guide's own file and
// lines, so `guide-output.py run GUIDE -- PROGRAM` checks what a program that
// calls the function prints, and compiler errors point into the guide.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: GuideCodeExtractor GUIDE.md OUTPUT.swift FUNCTION\n".utf8))
    exit(2)
}
let guidePath = URL(filePath: arguments[1]).standardizedFileURL.path(percentEncoded: false)
let guide = try String(contentsOfFile: arguments[1], encoding: .utf8)

/// A block's first line in the guide, and its lines.
var blocks: [(start: Int, lines: [Substring])] = []
var current: [Substring]?
for (index, line) in guide.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
        blocks.append((index + 2, []))
    } else if current != nil, line.hasPrefix("```") {
        blocks[blocks.count - 1].lines = current!
        current = nil
    } else if current != nil {
        current!.append(line)
    }
}

/// A code line with its print calls made guidePrint calls that pass their line
/// (guide-output.py's `rewrite`: a `print(` not preceded by `.` or a word character).
func rewrite(_ line: Substring) -> String {
    var result = ""
    var rest = line[...]
    while let found = rest.range(of: "print(") {
        let before = rest[..<found.lowerBound]
        let previous = found.lowerBound > line.startIndex ? line[line.index(before: found.lowerBound)] : " "
        result += before
        if previous == "." || previous == "_" || previous.isLetter || previous.isNumber {
            result += "print("
            rest = rest[found.upperBound...]
            continue
        }
        let after = rest[found.upperBound...]
        if let close = after.firstIndex(where: { !$0.isWhitespace }), after[close] == ")" {
            result += "guidePrint(#line)"
            rest = after[after.index(after: close)...]
        } else {
            result += "guidePrint(#line, "
            rest = after
        }
    }
    return result + rest
}

let imports = Set(blocks.flatMap { $0.lines.filter { $0.hasPrefix("import ") } }).sorted()
// Import lines stay as empty lines, so every other line keeps its number.
let bodies = blocks.map { block in
    "#sourceLocation(file: \"\(guidePath)\", line: \(block.start))\n"
        + block.lines.map { $0.hasPrefix("import ") ? "" : rewrite($0) }.joined(separator: "\n")
}
let source = """
    // Generated from \(URL(filePath: arguments[1]).lastPathComponent) by GuideCodeExtractor; not committed.
    \(imports.joined(separator: "\n"))
    #if canImport(Glibc)
    import Glibc
    #elseif canImport(Darwin)
    import Darwin
    #endif

    /// Every block of the guide, in order.
    func \(arguments[3])() async throws {
    \(bodies.joined(separator: "\n"))
    #sourceLocation()
    }

    /// `print` as the guide calls it, recording which guide line printed what in
    /// the file that `STOWAGE_GUIDE_PRINTS` names, as Scripts/guide-output.py
    /// reads it (its GUIDE_PRINT is the same function); without that variable, a plain print.
    fileprivate func guidePrint(_ line: Int, _ items: Any..., separator: String = " ", terminator: String = "\\n") {
        let text = items.map { String(describing: $0) }.joined(separator: separator) + terminator
        guard let path = getenv("STOWAGE_GUIDE_PRINTS") else { return Swift.print(text, terminator: "") }
        let record = Array("\\(line) \\(text.utf8.count)\\n\\(text)".utf8)
        // One write per record, appended: prints from other threads never interleave.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { fatalError("can not open \\(String(cString: path))") }
        _ = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    """
try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
