// swift-tools-version: 6.2
import PackageDescription

// A package of its own, so that users of Stowage never resolve package-benchmark.
let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder's
        // name, which is whatever a clone of the repository is called.
        .package(name: "Stowage", path: "../"),
        // ordo-one/package-benchmark, renamed; the old identity warns on every run.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Context only: swift-configuration's in-memory reader, its JSON FileProvider
        // (the JSON trait, which FileProvider<JSONSnapshot> needs, is on by default)
        // and its EnvironmentVariablesProvider.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "StowageBenchmarks",
            dependencies: [
                .product(name: "StowageInMemory", package: "Stowage"),
                .product(name: "StowageJSONFile", package: "Stowage"),
                .product(name: "StowageEnvironment", package: "Stowage"),
                .product(name: "StowageUserDefaults", package: "Stowage"),
                .product(name: "StowageFlags", package: "Stowage"),
                .product(name: "StowageLocking", package: "Stowage"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Configuration", package: "swift-configuration"),
                // Built with the suite, so groups 15, 16 and 18 find them beside it; not linked.
                "ColdStartStowage", "ColdStartFoundation", "ModifyWorker", "ReferenceMemory",
            ],
            path: "Benchmarks/StowageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Whole processes that groups 15 and 16 start (outside Benchmarks/, where the
        // plugin would take them for suites): each links only what its
        // job needs, so starting it costs what it would cost a real tool.
        .executableTarget(
            name: "ColdStartStowage",
            dependencies: [.product(name: "StowageJSONFile", package: "Stowage")],
            path: "Programs/ColdStartStowage"
        ),
        .executableTarget(name: "ColdStartFoundation", path: "Programs/ColdStartFoundation"),
        // glibc's own count of the heap, chunk overhead included, for group 18's
        // memory figures, taken in a process of its own, without the suite's malloc interposer.
        .target(name: "MallocStatistics", path: "Support/MallocStatistics"),
        .executableTarget(
            name: "ReferenceMemory",
            dependencies: ["MallocStatistics", .product(name: "StowageInMemory", package: "Stowage")],
            path: "Programs/ReferenceMemory"
        ),
        .executableTarget(
            name: "ModifyWorker",
            dependencies: [.product(name: "StowageJSONFile", package: "Stowage")],
            path: "Programs/ModifyWorker"
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.name != "MallocStatistics" {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
