import StowageJSONFile
import StowageTesting
import Testing
import StowageTestSupport

struct JSONFileStoreConformanceTests {
    typealias Suite = StorageConformanceSuite<JSONFileStore>

    /// The suite with changes made by a second, separately configured store on
    /// the same file, as another process would make them: it writes the file,
    /// and the store under test must notice the file changed and announce it.
    static let suite = Suite(
        options: Suite.Options(
            externalChange: { store, key, value in
                // This process's unwritten changes win over the file's (see the guide), so write them first.
                try store.flush()
                let other = JSONFileStore(url: store.url, options: .init(prettyPrinted: false, changeDetection: .none))
                if let value { try other.setStoredValue(value, forKey: key, .granted) } else { try other.removeStoredValue(forKey: key, .granted) }
                try other.flush()
            },
            supportsNonFiniteDoubles: false
        )
    ) {
        JSONFileStore(url: directory.url("\(UInt64.random(in: 0...UInt64.max)).json"), options: .init(writeDelay: .milliseconds(5)))
    }

    /// One directory for every store the suite makes; each store gets its own file in it.
    static let directory = TemporaryDirectory()

    @Test(arguments: Suite.Check.allCases)
    func conformance(_ check: Suite.Check) async throws {
        try await Self.suite.run(check)
    }
}
