// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve swift-log.
let package = Package(
    name: "StowageLogging",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowageLogging", targets: ["StowageLogging"]),
        .executable(name: "stowage-logging-example", targets: ["StowageLoggingExample"]),
    ],
    dependencies: [
        // release: remove-begin
        // Lines up to a remove-end need this repository's folders: Scripts/release.sh leaves them out
        // of the published package, and puts the core's URL in place of its path.
        // Named, because a path dependency is otherwise known by its folder's name.
        .package(name: "Stowage", path: "../.."),
        // The plugin that compiles the guides' code, shared by every integration.
        .package(path: "../../Tools/GuideCode"),
        // release: remove-end
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Stowage's reports and store events, to a Logger the program passes in.
        .target(
            name: "StowageLogging",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Tests, against real stores, with swift-log's in-memory handler.
        .testTarget(
            name: "StowageLoggingTests",
            dependencies: [
                "StowageLogging",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "StowageJSONFile", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
            ]
        ),

        // release: remove-begin
        // The code of Guides/Logging.md, a program that CI runs to check what it prints, so the guide can not drift from the API.
        .executableTarget(
            name: "StowageLoggingGuide",
            dependencies: [
                "StowageLogging",
                .product(name: "StowageJSONFile", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
            ],
            path: "Guides/StowageLoggingGuide",
            plugins: [.plugin(name: "GuideCode", package: "GuideCode")]
        ),
        // release: remove-end

        // The example (swift run --package-path Integrations/Logging stowage-logging-example).
        .executableTarget(
            name: "StowageLoggingExample",
            dependencies: ["StowageLogging", .product(name: "StowageJSONFile", package: "Stowage")],
            path: "Examples/StowageLoggingExample"
        ),
        // What a logged report costs, beside the same line logged directly (swift run -c release StowageLoggingBenchmarks).
        .executableTarget(
            name: "StowageLoggingBenchmarks",
            dependencies: ["StowageLogging"],
            path: "Benchmarks/StowageLoggingBenchmarks"
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
