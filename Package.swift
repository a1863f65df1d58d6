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
        .library(name: "StowageUserDefaults", targets: ["StowageUserDefaults"]),
        .library(name: "StowageFlags", targets: ["StowageFlags"]),
        .library(name: "StowageTesting", targets: ["StowageTesting"]),
        // Who changed a key, from what and when, for stores that keep a history and the tools that read it.
        .library(name: "StowageHistory", targets: ["StowageHistory"]),
        // JSON text of a `StoredValue`, both ways, for stores outside this package that keep values as text.
        .library(name: "StowageJSON", targets: ["StowageJSON"]),
        // A lock ThreadSanitizer sees, for those who write stores: apart from what app code uses.
        .library(name: "StowageLocking", targets: ["StowageLocking"]),
        // The example is no product: `swift run stowage-example` reaches it in a clone, and users of
        // the package never see it.
    ],
    targets: [
        // The library.
        .target(name: "Stowage", dependencies: ["StowageLocking", "StowageSwiftRuntime"]),
        // `Locked`, the lock the core, the stores and the integrations share.
        .target(name: "StowageLocking"),
        // The Swift runtime's test of whether an object is being deinitialised, declared for C's calling convention.
        .target(name: "StowageSwiftRuntime"),
        .target(name: "StowageInMemory", dependencies: ["Stowage", "StowageLocking"]),
        // The JSON parser and serializer over `StoredValue`, shared by the file and environment stores;
        // public only for JSON text (`jsonText()`, `StoredValue(jsonText:)`).
        .target(name: "StowageJSON", dependencies: ["Stowage"]),
        .target(name: "StowageJSONFile", dependencies: ["Stowage", "StowageLocking", "StowageJSON"]),
        .target(name: "StowageEnvironment", dependencies: ["Stowage", "StowageLocking", "StowageJSON"]),
        // Foundation's UserDefaults, and moving in from the libraries that wrote to it.
        .target(name: "StowageUserDefaults", dependencies: ["Stowage", "StowageLocking"]),
        // Feature flags on the core: declared once, overridden locally, updated remotely.
        .target(name: "StowageFlags", dependencies: ["Stowage", "StowageLocking", "StowageInMemory", "StowageJSON", "StowageJSONFile"]),

        // The history a store keeps of its changes: apart from the core, as only such stores and their readers need it.
        .target(name: "StowageHistory", dependencies: ["Stowage"]),

        // The testing kit: the conformance suite every store passes, ours or a user's.
        .target(name: "StowageTesting", dependencies: ["Stowage", "StowageLocking"]),

        // Tests, with what they share and the second processes some of them start.
        // The compiler's own answer to whether the build is sanitized (tests run smaller there, see `TestScale`).
        .target(name: "StowageSanitizerProbe", path: "Tests/StowageSanitizerProbe"),
        .target(
            name: "StowageTestSupport", dependencies: ["Stowage", "StowageLocking", "StowageFlags", "StowageSanitizerProbe"], path: "Tests/StowageTestSupport"),
        .executableTarget(name: "StowageJSONFileWorker", dependencies: ["StowageJSONFile"], path: "Tests/StowageJSONFileWorker"),
        .executableTarget(name: "StowageEnvironmentWorker", dependencies: ["StowageEnvironment"], path: "Tests/StowageEnvironmentWorker"),
        .executableTarget(name: "StowageFlagsWorker", dependencies: ["StowageFlags", "StowageTestSupport"], path: "Tests/StowageFlagsWorker"),
        .executableTarget(name: "StowageUserDefaultsWorker", dependencies: ["StowageUserDefaults", "StowageTesting"], path: "Tests/StowageUserDefaultsWorker"),
        .testTarget(name: "StowageTests", dependencies: ["Stowage", "StowageLocking", "StowageInMemory", "StowageTesting", "StowageTestSupport"]),
        .testTarget(name: "StowageInMemoryTests", dependencies: ["StowageInMemory", "StowageLocking", "StowageTesting", "StowageTestSupport"]),
        .testTarget(name: "StowageJSONTests", dependencies: ["Stowage", "StowageJSON", "StowageTestSupport"]),
        .testTarget(name: "StowageHistoryTests", dependencies: ["Stowage", "StowageHistory"]),
        .testTarget(name: "StowageLockingTests", dependencies: ["StowageLocking"]),
        .testTarget(
            name: "StowageJSONFileTests",
            dependencies: ["StowageJSONFile", "StowageJSON", "StowageLocking", "StowageTesting", "StowageTestSupport", "StowageJSONFileWorker"]
        ),
        .testTarget(
            name: "StowageEnvironmentTests",
            dependencies: ["StowageEnvironment", "StowageLocking", "StowageTesting", "StowageTestSupport", "StowageEnvironmentWorker"]
        ),
        .testTarget(
            name: "StowageUserDefaultsTests",
            dependencies: ["StowageUserDefaults", "StowageJSONFile", "StowageLocking", "StowageTesting", "StowageTestSupport", "StowageUserDefaultsWorker"]
        ),
        .testTarget(
            name: "StowageCompositionTests",
            dependencies: [
                "StowageInMemory", "StowageJSONFile", "StowageEnvironment", "StowageLocking", "StowageTesting", "StowageTestSupport", "StowageJSONFileWorker",
            ]
        ),
        .testTarget(
            name: "StowageFlagsTests",
            dependencies: ["StowageFlags", "StowageEnvironment", "StowageLocking", "StowageTesting", "StowageTestSupport", "StowageFlagsWorker"]
        ),
        // Replays the fuzz targets' committed inputs through their checks, without libFuzzer.
        .testTarget(name: "StowageFuzzingTests", dependencies: ["StowageFuzzing"]),

        // Tools, for development only (see Scripts/): the fuzz checks and one libFuzzer executable per target,
        // the JSONTestSuite check, the soak of the JSON file store, and the instruction counts of the hot paths.
        .target(
            name: "StowageFuzzing",
            dependencies: ["Stowage", "StowageJSON", "StowageEnvironment", "StowageFlags"],
            path: "Tools/StowageFuzzing",
            // `@_extern(c)` declares libFuzzer's LLVMFuzzerRunDriver, in fuzzing builds only.
            swiftSettings: [.enableExperimentalFeature("Extern")]
        ),
        .executableTarget(name: "StowageJSONParserFuzzer", dependencies: ["StowageFuzzing"], path: "Tools/StowageJSONParserFuzzer"),
        .executableTarget(name: "StowageDotEnvParserFuzzer", dependencies: ["StowageFuzzing"], path: "Tools/StowageDotEnvParserFuzzer"),
        .executableTarget(name: "StowageEnvironmentValueFuzzer", dependencies: ["StowageFuzzing"], path: "Tools/StowageEnvironmentValueFuzzer"),
        .executableTarget(name: "StowageStorableDecodingFuzzer", dependencies: ["StowageFuzzing"], path: "Tools/StowageStorableDecodingFuzzer"),
        .executableTarget(name: "StowageJSONLogicFuzzer", dependencies: ["StowageFuzzing"], path: "Tools/StowageJSONLogicFuzzer"),
        .executableTarget(name: "StowageFlagDefinitionsFuzzer", dependencies: ["Stowage", "StowageFuzzing"], path: "Tools/StowageFlagDefinitionsFuzzer"),
        .executableTarget(name: "StowageJSONTestSuiteCheck", dependencies: ["StowageJSON"], path: "Tools/StowageJSONTestSuiteCheck"),
        .executableTarget(
            name: "StowageJSONLogicCompat", dependencies: ["Stowage", "StowageFlags", "StowageJSON"], path: "Tools/StowageJSONLogicCompat"),
        .executableTarget(name: "StowageSoak", dependencies: ["Stowage", "StowageLocking", "StowageJSON", "StowageJSONFile"], path: "Tools/StowageSoak"),
        // Runs one hot path N times, for callgrind to count its instructions (Scripts/instruction-counts.sh).
        .executableTarget(
            name: "StowageInstructionCounts", dependencies: ["StowageInMemory", "StowageLocking", "StowageFlags"], path: "Tools/StowageInstructionCounts"),

        // The example the README runs.
        // Named as the command runs it, since no product names it.
        .executableTarget(
            name: "stowage-example",
            dependencies: ["StowageInMemory", "StowageJSONFile", "StowageEnvironment", "StowageFlags"],
            path: "Examples/StowageExample"
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
