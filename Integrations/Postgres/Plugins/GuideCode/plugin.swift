import Foundation
import PackagePlugin

/// Compiles the Swift blocks of the store's guide (`Guides/PostgresStore.md`
/// at the repository's root) into the target it is applied to, so the guide
/// can not drift from the API: a block that no longer compiles fails the build.
@main
struct GuideCode: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let guide = context.package.directoryURL.appending(path: "../../Guides/PostgresStore.md").standardizedFileURL
        let output = context.pluginWorkDirectoryURL.appending(path: "GuideCode.swift")
        return [
            .buildCommand(
                displayName: "Extracting the code of \(guide.lastPathComponent)",
                executable: try context.tool(named: "GuideCodeExtractor").url,
                arguments: [guide.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [guide],
                outputFiles: [output]
            )
        ]
    }
}
