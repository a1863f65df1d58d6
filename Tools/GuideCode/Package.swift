// swift-tools-version: 6.2
import PackageDescription

// The build plugin that compiles the Swift blocks of the guides an
// integration package owns, so a guide can not drift from the API. A package
// of its own, so every integration (Integrations/<Name>) uses the one copy.
let package = Package(
    name: "GuideCode",
    products: [
        .plugin(name: "GuideCode", targets: ["GuideCode"])
    ],
    targets: [
        .plugin(name: "GuideCode", capability: .buildTool(), dependencies: ["GuideCodeExtractor"]),
        .executableTarget(name: "GuideCodeExtractor"),
    ],
    swiftLanguageModes: [.v6]
)
