// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve postgres-nio.
let package = Package(
    name: "StowagePostgres",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowagePostgres", targets: ["StowagePostgres"]),
        .executable(name: "stowage-postgres-example", targets: ["StowagePostgresExample"]),
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
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The store.
        .target(
            name: "StowagePostgres",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "StowageJSON", package: "Stowage"),
                .product(name: "StowageHistory", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Tests, against a throwaway server that Scripts/postgres.sh starts, and the second process they start.
        .executableTarget(
            name: "StowagePostgresWorker",
            dependencies: ["StowagePostgres", .product(name: "StowageHistory", package: "Stowage")],
            path: "Tests/StowagePostgresWorker"
        ),
        .testTarget(
            name: "StowagePostgresTests",
            dependencies: [
                "StowagePostgres", "StowagePostgresWorker",
                .product(name: "StowageTesting", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageHistory", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]
        ),

        // release: remove-begin
        // The code of Guides/PostgresStore.md and Guides/Fleet.md, a program that CI runs against a throwaway server to check what it prints, so the guides can not drift from the API.
        .executableTarget(
            name: "StowagePostgresGuide",
            dependencies: [
                "StowagePostgres", .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "StowageEnvironment", package: "Stowage"), .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Guides/StowagePostgresGuide",
            plugins: [.plugin(name: "GuideCode", package: "GuideCode")]
        ),
        // release: remove-end

        // The example (run against a server the script starts: Scripts/example.sh).
        .executableTarget(
            name: "StowagePostgresExample",
            dependencies: [
                "StowagePostgres", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Examples/StowagePostgresExample"),
        // release: remove-begin
        .executableTarget(
            name: "StowagePostgresBenchmarks",
            dependencies: [
                .product(name: "StowageBenchmarkSupport", package: "BenchmarkSupport"), "StowagePostgres",
                .product(name: "StowageInMemory", package: "Stowage"), .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Benchmarks/StowagePostgresBenchmarks"),
        // release: remove-end

        // Reads the store's cache N times for callgrind to count (the root's Scripts/instruction-counts.sh runs it under Scripts/postgres.sh).
        .executableTarget(name: "StowagePostgresInstructionCounts", dependencies: ["StowagePostgres"], path: "Tools/StowagePostgresInstructionCounts"),
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
