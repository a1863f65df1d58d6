// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve swift-configuration.
let package = Package(
    name: "StowageConfiguration",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowageConfiguration", targets: ["StowageConfiguration"]),
        .executable(name: "stowage-configuration-example", targets: ["StowageConfigurationExample"]),
    ],
    dependencies: [
        // release: remove-begin
        // Lines up to a remove-end need this repository's folders: Scripts/release.sh leaves them out
        // of the published package, and puts the core's URL in place of its path.
        // Named, because a path dependency is otherwise known by its folder's name.
        .package(name: "Stowage", path: "../.."),
        // The plugin that compiles the guides' code, shared by every integration.
        .package(path: "../../Tools/GuideCode"),
        // The clock, samples and tables every integration's benchmarks share.
        .package(path: "../../Tools/BenchmarkSupport"),
        // release: remove-end
        // No traits: the bridge needs only the core types and the in-memory providers, so the
        // JSON, YAML, reloading and logging support (and their dependencies) stay out of the build.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
    ],
    targets: [
        // The bridge, both ways.
        .target(
            name: "StowageConfiguration",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "StowageJSON", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),

        // Tests, with real stores and real providers, and swift-configuration's own compatibility test.
        .testTarget(
            name: "StowageConfigurationTests",
            dependencies: [
                "StowageConfiguration",
                .product(name: "StowageTesting", package: "Stowage"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageJSONFile", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "ConfigurationTesting", package: "swift-configuration"),
            ]
        ),

        // release: remove-begin
        // The code of Guides/Configuration.md, a program that CI runs to check what it prints, so the guide can not drift from the API.
        .executableTarget(
            name: "StowageConfigurationGuide",
            dependencies: [
                "StowageConfiguration",
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageJSONFile", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
            ],
            path: "Guides/StowageConfigurationGuide",
            plugins: [.plugin(name: "GuideCode", package: "GuideCode")]
        ),
        // release: remove-end

        // The example, and the benchmarks with their own small timing harness.
        .executableTarget(
            name: "StowageConfigurationExample",
            dependencies: [
                "StowageConfiguration", .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageJSONFile", package: "Stowage"),
            ],
            path: "Examples/StowageConfigurationExample"
        ),
        // release: remove-begin
        .executableTarget(
            name: "StowageConfigurationBenchmarks",
            dependencies: [
                .product(name: "StowageBenchmarkSupport", package: "BenchmarkSupport"),
                "StowageConfiguration", .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageJSONFile", package: "Stowage"),
            ],
            path: "Benchmarks/StowageConfigurationBenchmarks"
        ),
        // release: remove-end
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
