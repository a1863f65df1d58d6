import Foundation
import PackagePlugin

/// Compiles the Swift blocks of the guides that use this package (at the
/// repository's root, `Guides/`) into the target it is applied to, each
/// guide as one function, so a guide can not drift from the API: a block
/// that no longer compiles fails the build.
@main
struct GuideCode: BuildToolPlugin {
    /// Each guide, and the function its blocks become.
    static let guides = [("PostgresStore.md", "runPostgresStoreGuide"), ("Fleet.md", "runFleetGuide")]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        try Self.guides.map { file, function in
            let guide = context.package.directoryURL.appending(path: "../../Guides/\(file)").standardizedFileURL
            let output = context.pluginWorkDirectoryURL.appending(path: "\(function).swift")
            return .buildCommand(
                displayName: "Extracting the code of \(file)",
                executable: try context.tool(named: "GuideCodeExtractor").url,
                arguments: [guide.path(percentEncoded: false), output.path(percentEncoded: false), function],
                inputFiles: [guide],
                outputFiles: [output]
            )
        }
    }
}
