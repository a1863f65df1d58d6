// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve Hummingbird: Stowage over HTTP, the
// OpenFeature Remote Evaluation Protocol (OFREP) for programs in any language.
let package = Package(
    name: "StowageHTTP",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowageHTTP", targets: ["StowageHTTP"]),
        .executable(name: "stowage-http-example", targets: ["StowageHTTPExample"]),
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
        // The fleet the Python clients' test serves from: two servers on one PostgreSQL namespace.
        .package(name: "StowagePostgres", path: "../Postgres"),
        // release: remove-end
        // Without its traits: they add swift-configuration and full Foundation, which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // HummingbirdBcrypt only: the admin page's password hashes.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The tests' client of the event stream, which HummingbirdTesting builds anyway.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The OFREP endpoints, their access tokens and their change stream.
        .target(
            name: "StowageHTTP",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageJSON", package: "Stowage"),
                .product(name: "StowageHistory", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Tests, over real connections on loopback.
        .testTarget(
            name: "StowageHTTPTests",
            dependencies: [
                "StowageHTTP",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]
        ),

        // release: remove-begin
        // A server of a PostgreSQL fleet, which Scripts/check-python-clients.sh starts twice for OpenFeature's Python SDK.
        .executableTarget(
            name: "StowageHTTPFleetServer",
            dependencies: [
                "StowageHTTP",
                .product(name: "StowagePostgres", package: "StowagePostgres"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageHistory", package: "Stowage"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Tests/StowageHTTPFleetServer"
        ),
        // The code of Guides/ServingFlags.md and Guides/RunningFleetFlags.md, a program that CI runs to check what it prints,
        // so the guides can not drift from the API.
        .executableTarget(
            name: "StowageHTTPGuide",
            dependencies: [
                "StowageHTTP",
                .product(name: "StowagePostgres", package: "StowagePostgres"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Guides/StowageHTTPGuide",
            plugins: [.plugin(name: "GuideCode", package: "GuideCode")]
        ),
        // A load test of bulk evaluation on loopback, beside in-process and static baselines (swift run -c release StowageHTTPBenchmarks).
        .executableTarget(
            name: "StowageHTTPBenchmarks",
            dependencies: [
                "StowageHTTP",
                .product(name: "StowageBenchmarkSupport", package: "BenchmarkSupport"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/StowageHTTPBenchmarks"
        ),
        // release: remove-end

        // The example: a server of targeted flags (swift run --package-path Integrations/HTTP stowage-http-example).
        .executableTarget(
            name: "StowageHTTPExample",
            dependencies: [
                "StowageHTTP",
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Examples/StowageHTTPExample"
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
