// Writes the ```swift blocks of a Markdown guide, in order, as the body of
// one async function, for the GuideCode plugin. A guide's blocks share one
// scope, as they read: a later block uses what an earlier one declared.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: GuideCodeExtractor GUIDE.md OUTPUT.swift FUNCTION\n".utf8))
    exit(2)
}
let guide = try String(contentsOfFile: arguments[1], encoding: .utf8)
var blocks: [String] = []
var current: [Substring]?
for line in guide.split(separator: "\n", omittingEmptySubsequences: false) {
    if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
    } else if current != nil, line.hasPrefix("```") {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
    } else if current != nil {
        current!.append(line)
    }
}
let imports = blocks.flatMap { $0.split(separator: "\n").filter { $0.hasPrefix("import ") } }
let bodies = blocks.enumerated().map { number, block in
    "// Block \(number + 1)\n" + block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
}
let source = """
    // Generated from \(URL(filePath: arguments[1]).lastPathComponent) by GuideCodeExtractor; not committed.
    \(Set(imports).sorted().joined(separator: "\n"))

    /// Every block of the guide, in order.
    func \(arguments[3])() async throws {
    \(bodies.joined(separator: "\n\n"))
    }

    """
try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
