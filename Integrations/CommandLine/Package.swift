// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve swift-argument-parser.
let package = Package(
    name: "StowageCommandLine",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "stowage", targets: ["StowageCommandLine"])
    ],
    dependencies: [
        // release: remove-begin
        // Lines up to a remove-end need this repository's folders: Scripts/release.sh leaves them out
        // of the published package, and puts the core's URL in place of its path.
        // Named, because a path dependency is otherwise known by its folder's name.
        .package(name: "Stowage", path: "../.."),
        // release: remove-end
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The `stowage` tool.
        .executableTarget(
            name: "StowageCommandLine",
            dependencies: [
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageJSON", package: "Stowage"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Tests run the tool as a person does, beside programs that hold the flags or the settings.
        .executableTarget(
            name: "StowageFlagsProgram",
            dependencies: [.product(name: "StowageFlags", package: "Stowage")],
            path: "Tests/StowageFlagsProgram"
        ),
        .executableTarget(
            name: "StowageSettingsProgram",
            dependencies: [.product(name: "StowageJSONFile", package: "Stowage")],
            path: "Tests/StowageSettingsProgram"
        ),
        .testTarget(
            name: "StowageCommandLineTests",
            dependencies: ["StowageCommandLine", "StowageFlagsProgram", "StowageSettingsProgram"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
