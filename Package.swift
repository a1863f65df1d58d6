// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Stowage", targets: ["Stowage"]),
        .library(name: "StowageInMemory", targets: ["StowageInMemory"]),
        .library(name: "StowageJSONFile", targets: ["StowageJSONFile"]),
        .library(name: "StowageEnvironment", targets: ["StowageEnvironment"]),
        .library(name: "StowageTesting", targets: ["StowageTesting"]),
        .executable(name: "stowage-example", targets: ["StowageExample"]),
    ],
    targets: [
        .target(name: "Stowage"),
        .target(name: "StowageInMemory", dependencies: ["Stowage"]),
        .target(name: "StowageTesting", dependencies: ["Stowage"]),
        // The JSON parser and serializer over `StoredValue`, shared by the file and environment stores.
        .target(name: "StowageJSON", dependencies: ["Stowage"]),
        .target(name: "StowageJSONFile", dependencies: ["Stowage", "StowageJSON"]),
        .target(name: "StowageEnvironment", dependencies: ["Stowage", "StowageJSON"]),
        .executableTarget(name: "StowageExample", dependencies: ["StowageInMemory", "StowageJSONFile", "StowageEnvironment"]),
        // A development check of the JSON parser against nst/JSONTestSuite; see Scripts/check-json-test-suite.sh.
        .executableTarget(name: "JSONTestSuiteCheck", dependencies: ["StowageJSON"]),
        // Fuzz targets: the checks, one libFuzzer executable per target, and the tests that
        // replay the committed corpus through the same checks; see Scripts/fuzz.sh.
        .target(
            name: "StowageFuzzing",
            dependencies: ["Stowage", "StowageJSON", "StowageEnvironment"],
            // `@_extern(c)` declares libFuzzer's LLVMFuzzerRunDriver, in fuzzing builds only.
            swiftSettings: [.enableExperimentalFeature("Extern")]
        ),
        .executableTarget(name: "JSONParserFuzzer", dependencies: ["StowageFuzzing"]),
        .executableTarget(name: "DotEnvParserFuzzer", dependencies: ["StowageFuzzing"]),
        .executableTarget(name: "EnvironmentValueFuzzer", dependencies: ["StowageFuzzing"]),
        .executableTarget(name: "StorableDecodingFuzzer", dependencies: ["StowageFuzzing"]),
        .testTarget(name: "StowageFuzzingTests", dependencies: ["StowageFuzzing"]),
        // A development soak of the JSON file store: processes, threads and an external editor on one file; see Scripts/soak.sh.
        .executableTarget(name: "StowageSoak", dependencies: ["Stowage", "StowageJSON", "StowageJSONFile"]),
        .testTarget(name: "StowageTests", dependencies: ["Stowage", "StowageInMemory", "StowageTesting", "StowageTestSupport"]),
        .testTarget(name: "StowageInMemoryTests", dependencies: ["StowageInMemory", "StowageTesting"]),
        // A second process for the JSON file store's multi-process and crash tests.
        .executableTarget(name: "StowageJSONFileWorker", dependencies: ["StowageJSONFile"]),
        // A second process for the environment store's tests that call setenv.
        .executableTarget(name: "StowageEnvironmentWorker", dependencies: ["StowageEnvironment"]),
        .testTarget(name: "StowageEnvironmentTests", dependencies: ["StowageEnvironment", "StowageTesting", "StowageTestSupport", "StowageEnvironmentWorker"]),
        .testTarget(name: "StowageJSONFileTests", dependencies: ["StowageJSONFile", "StowageJSON", "StowageTesting", "StowageTestSupport", "StowageFuzzing", "StowageJSONFileWorker"]),
        // Temporary directories and worker processes, for the test targets.
        .target(name: "StowageTestSupport", dependencies: ["Stowage"], path: "Tests/StowageTestSupport"),
        .testTarget(
            name: "StowageCompositionTests",
            dependencies: ["StowageInMemory", "StowageJSONFile", "StowageEnvironment", "StowageTesting", "StowageTestSupport", "StowageJSONFileWorker"]
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
