// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve swift-distributed-tracing:
// flag evaluations recorded on the current span, with OpenTelemetry's feature-flag names.
let package = Package(
    name: "StowageTracing",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowageTracing", targets: ["StowageTracing"])
    ],
    dependencies: [
        // release: remove-begin
        // Lines up to a remove-end need this repository's folders: Scripts/release.sh leaves them out
        // of the published package, and puts the core's URL in place of its path.
        // Named, because a path dependency is otherwise known by its folder's name.
        .package(name: "Stowage", path: "../.."),
        // release: remove-end
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        // The tracing hook.
        .target(
            name: "StowageTracing",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // Tests, with swift-distributed-tracing's in-memory tracer.
        .testTarget(
            name: "StowageTracingTests",
            dependencies: [
                "StowageTracing",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "StowageInMemory", package: "Stowage"),
            ]
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
