import StowageInMemory
import StowageJSONFile
import StowageTestSupport
import StowageTesting
import Testing

/// The conformance suite every store passes, run on a layered store and on
/// namespaces: composition must not break references, observation or
/// concurrency.
struct CompositionConformanceTests {
    /// Layered stores and namespaces, which are layered stores under a prefix.
    typealias LayeredSuite = StorageConformanceSuite<LayeredStore>

    /// An empty top layer over the layer that takes writes; external changes
    /// are made in the write layer, behind the layered store's back.
    static let layeredSuite = LayeredSuite(
        options: LayeredSuite.Options(externalChange: { store, key, value in
            let writeLayer = try #require(store.writeLayerIndex.flatMap { store.layers[$0].store as? InMemoryStore })
            var snapshot = writeLayer.snapshot()
            snapshot[key] = value
            writeLayer.restore(snapshot)
        })
    ) {
        let writable = InMemoryStore()
        return LayeredStore([InMemoryStore(), writable, InMemoryStore()], writingTo: .store(writable))
    }

    /// A namespace of a store that also holds keys outside it; external
    /// changes are made in the base store.
    static let namespaceSuite = LayeredSuite(
        options: LayeredSuite.Options(externalChange: { namespace, key, value in
            let base = try #require(namespace.layers.first?.store as? InMemoryStore)
            var snapshot = base.snapshot()
            snapshot[namespace.layerKey(forKey: key)] = value
            base.restore(snapshot)
        })
    ) {
        InMemoryStore(["outside": 1, "app.outside": 2]).namespace("app")
    }

    static let directory = TemporaryDirectory()

    /// A namespace of a JSON file in the nested layout, where namespaced keys become nested objects.
    static let fileNamespaceSuite = LayeredSuite(options: LayeredSuite.Options(supportsNonFiniteDoubles: false)) {
        let url = directory.url("\(UInt64.random(in: 0...UInt64.max)).json")
        return JSONFileStore(url: url, options: .init(writeDelay: .milliseconds(5))).namespace("app")
    }

    @Test(arguments: LayeredSuite.Check.allCases)
    func layeredStorePasses(_ check: LayeredSuite.Check) async throws {
        try await Self.layeredSuite.run(check)
    }

    /// A namespace of a layered store: the same three layers under `app.`,
    /// where the prefix meets precedence, shadowing, swaps and cache discards;
    /// external changes are made in the write layer, under the prefix.
    static let layeredNamespaceSuite = LayeredSuite(
        options: LayeredSuite.Options(externalChange: { namespace, key, value in
            let writeLayer = try #require(namespace.writeLayerIndex.flatMap { namespace.layers[$0].store as? InMemoryStore })
            var snapshot = writeLayer.snapshot()
            snapshot[namespace.layerKey(forKey: key)] = value
            writeLayer.restore(snapshot)
        })
    ) {
        let writable = InMemoryStore(["outside": 1, "app.outside": 2])
        let layered = LayeredStore([.init("top", InMemoryStore()), .init("writable", writable), .init("bottom", InMemoryStore())], writingTo: .store(writable))
        return layered.namespace("app")
    }

    @Test(arguments: LayeredSuite.Check.allCases)
    func namespacePasses(_ check: LayeredSuite.Check) async throws {
        try await Self.namespaceSuite.run(check)
    }

    @Test(arguments: LayeredSuite.Check.allCases)
    func fileNamespacePasses(_ check: LayeredSuite.Check) async throws {
        try await Self.fileNamespaceSuite.run(check)
    }

    @Test(arguments: LayeredSuite.Check.allCases)
    func namespaceOfALayeredStorePasses(_ check: LayeredSuite.Check) async throws {
        try await Self.layeredNamespaceSuite.run(check)
    }
}
