// swift-tools-version: 6.2
import PackageDescription

// A user's package, depending on every published product of Stowage by URL,
// with the lines of README.md's "Install" section. Not part of the root
// package: Scripts/check-release.sh publishes the checkout to local
// repositories (Scripts/release.sh), builds this package against them (the
// placeholder addresses made file:// ones into their folder, nothing else
// changed), and runs it.
let package = Package(
    name: "ReleaseConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/stowage-swift/stowage.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-postgres.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-logging.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-configuration.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-command-line.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-http.git", from: "0.1.0"),
        .package(url: "https://github.com/stowage-swift/stowage-tracing.git", from: "0.1.0"),
        // The program's own logger, which StowageLogging routes to.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "ReleaseConsumer",
            dependencies: [
                .product(name: "Stowage", package: "stowage"),
                .product(name: "StowageInMemory", package: "stowage"),
                .product(name: "StowageJSONFile", package: "stowage"),
                .product(name: "StowageEnvironment", package: "stowage"),
                .product(name: "StowageUserDefaults", package: "stowage"),
                .product(name: "StowageFlags", package: "stowage"),
                .product(name: "StowageTesting", package: "stowage"),
                .product(name: "StowageJSON", package: "stowage"),
                .product(name: "StowageHistory", package: "stowage"),
                .product(name: "StowageLocking", package: "stowage"),
                .product(name: "StowagePostgres", package: "stowage-postgres"),
                .product(name: "StowageLogging", package: "stowage-logging"),
                .product(name: "StowageConfiguration", package: "stowage-configuration"),
                .product(name: "StowageHTTP", package: "stowage-http"),
                .product(name: "StowageTracing", package: "stowage-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
