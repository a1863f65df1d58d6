import StowageConfiguration
import StowageInMemory
import StowageBenchmarkSupport

/// Group b: a provider's value read as Stowage reads a setting, through a
/// `@Stored` wrapper over a `ConfigProviderStore` (served from the
/// reference's cache), against asking the provider directly.
struct StoredReadBenchmarks {
    let quick: Bool

    func run() throws -> ResultTable {
        let rounds = quick ? 3 : 21
        let iterations = quick ? 20_000 : 1_000_000
        let provider = InMemoryProvider(values: [AbsoluteConfigKey(["server", "port"]): 41])
        let store = ConfigProviderStore(provider)
        let settings = PortSettings(store: store)
        let layered = PortSettings(store: LayeredStore([.init("overrides", InMemoryStore()), .init("configuration", store)]))

        let subjects = [
            Subject(name: "`provider.value(forKey:type:)`, InMemoryProvider, directly — baseline") { try sumOfProviderReads(provider, $0) },
            Subject(name: "`@Stored` read over ConfigProviderStore(InMemoryProvider)") { sumOfWrapperReads(settings, $0) },
            Subject(name: "`@Stored` read over LayeredStore(InMemoryStore, ConfigProviderStore)") { sumOfWrapperReads(layered, $0) },
            Subject(name: "`store.value(forKey:as: Int.self)` on ConfigProviderStore (no cache: asks the provider)") { try sumOfStoreReads(store, $0) },
            Subject(name: "context: `reader.int(forKey:)`, InMemoryProvider") { sumOfReaderReads(ConfigReader(provider: provider), $0) },
        ]
        let perRead = try measureRounds(subjects, rounds: rounds, iterations: iterations, expectedSum: 41 * iterations)
        var table = ResultTable(
            title: "b. Read a provider's Int: Stowage `@Stored` over ConfigProviderStore vs the provider directly", ratioHeading: "p50 / baseline p50")
        for (index, subject) in subjects.enumerated() {
            table.rows.append(
                .init(
                    name: subject.name, p50: Format.duration(perRead[index].median), p90: Format.duration(perRead[index].percentile(90)),
                    opsPerSecond: 1 / perRead[index].median,
                    ratio: index == 0 ? "baseline" : Format.ratio(perRead[index].median, perRead[0].median)))
        }
        table.notes = [
            "\(rounds) rounds of \(Format.grouped(iterations)) reads per subject, taken in turn; p50 and p90 are over rounds, of the time per read; every sum checked.",
            "A wrapper read is served from its reference's cache, which the store's watch of the provider keeps current; `store.value(forKey:as:)` with no live reference asks the provider each time.",
        ]
        return table
    }
}

struct PortSettings<Store: UnderlyingStorage>: Sendable {
    @Stored<Store, Int> var port: Int

    init(store: Store) {
        _port = Stored(wrappedValue: 0, "server.port", in: store)
    }
}

@inline(never)
func sumOfWrapperReads<Store: UnderlyingStorage>(_ settings: PortSettings<Store>, _ iterations: Int) -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= settings.port }
    return sum
}

@inline(never)
func sumOfStoreReads<Store: UnderlyingStorage>(_ store: Store, _ iterations: Int) throws -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= try store.value(forKey: "server.port", as: Int.self) ?? 0 }
    return sum
}
