// swift-tools-version: 6.2
import PackageDescription

// What the integrations' benchmark programs share: a clock, samples with
// their percentiles, and the Markdown table each group prints. A package of
// its own, so every integration's benchmarks use the one copy.
let package = Package(
    name: "BenchmarkSupport",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StowageBenchmarkSupport", targets: ["StowageBenchmarkSupport"])
    ],
    targets: [
        .target(name: "StowageBenchmarkSupport")
    ],
    swiftLanguageModes: [.v6]
)
