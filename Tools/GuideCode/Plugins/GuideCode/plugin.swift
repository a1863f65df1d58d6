import Foundation
import PackagePlugin

/// Compiles the Swift blocks of the guides that an integration package owns
/// into the target it is applied to, each guide as one function
/// (`Guides/PostgresStore.md` becomes `runPostgresStoreGuide()`), so a guide
/// can not drift from the API: a block that no longer compiles fails the build.
///
/// A guide at the repository's root, `Guides/`, belongs to the package
/// `Integrations/<Name>` when it carries the line
/// `<!-- Compiled by Integrations/<Name> … -->`, which also tells
/// Scripts/check-guides.sh to leave it to that package.
@main
struct GuideCode: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let package = context.package.directoryURL.standardizedFileURL
        let folder = package.appending(path: "../../Guides").standardizedFileURL
        let marker = "<!-- Compiled by Integrations/\(package.lastPathComponent) "
        let guides = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .filter { guide in
                // The line itself, not a mention of it (a design article quotes it).
                let text = (try? String(contentsOf: guide, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").contains { $0.hasPrefix(marker) }
            }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        guard !guides.isEmpty else {
            throw GuideCodeError(message: "no guide in \(folder.path(percentEncoded: false)) carries \(marker)-->")
        }
        return try guides.map { guide in
            let function = "run\(guide.deletingPathExtension().lastPathComponent.filter { $0.isLetter || $0.isNumber })Guide"
            let output = context.pluginWorkDirectoryURL.appending(path: "\(function).swift")
            return .buildCommand(
                displayName: "Extracting the code of \(guide.lastPathComponent)",
                executable: try context.tool(named: "GuideCodeExtractor").url,
                arguments: [guide.path(percentEncoded: false), output.path(percentEncoded: false), function],
                inputFiles: [guide],
                outputFiles: [output]
            )
        }
    }
}

struct GuideCodeError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
