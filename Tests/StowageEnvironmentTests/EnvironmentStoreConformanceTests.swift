#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import StowageTesting
import Testing
import StowageTestSupport

struct EnvironmentStoreConformanceTests {
    typealias Suite = StorageConformanceSuite<EnvironmentStore>

    /// The suite over stores reading a `.env` file of their own, with keys
    /// used as variable names: the automatic mapping folds case and
    /// separators (`Key` and `KEY` both name `KEY`) and reports the second key
    /// as a conflict, which the suite's key-independence checks rightly call
    /// a failure; `EnvironmentStoreKeyMappingTests` covers that mapping. A change
    /// behind Stowage's back rewrites the file and reloads, as a program does
    /// when told its configuration changed.
    static let suite = Suite(
        options: Suite.Options(
            externalChange: { store, key, value in
                guard let file = store.dotEnvFile?.url else { return }
                let name = store.variableName(forKey: key)
                files.write(value.map { "\(name)=\(text(of: $0))\n" } ?? "# \(name) removed\n", to: file.lastPathComponent)
                try store.reload()
            }
        )
    ) {
        let file = files.write("", to: "\(UInt64.random(in: 0...UInt64.max)).env")
        return try EnvironmentStore(dotEnv: .init(url: file), variables: [:], options: .init(keyMapping: .exact))
    }

    static let files = TemporaryDirectory()

    /// The suite's external values are integers.
    private static func text(of value: StoredValue) -> String {
        switch value {
        case .signedInteger(let number): String(number)
        case .unsignedInteger(let number): String(number)
        default: "\(value)"
        }
    }

    @Test(arguments: Suite.Check.allCases)
    func conformance(_ check: Suite.Check) async throws {
        try await Self.suite.run(check)
    }

    @Test func theSuitePassesOnAStoreOverTheProcessEnvironmentWithExactNames() async throws {
        let suite = Suite { EnvironmentStore(options: .init(keyMapping: .exact)) }
        try await suite.run()
    }
}
