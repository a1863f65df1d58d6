import StowageInMemory
import StowagePostgres
import StowageBenchmarkSupport

/// Group a: a read never touches the network, so a wrapper read on a
/// `PostgresStore` should cost what one on an `InMemoryStore` costs. Each
/// subject reads 41 many times per round; the figure is the median over
/// rounds of the time per read. Rounds take the subjects in turn, so a
/// change in the machine's speed falls on all of them alike.
struct ReadBenchmarks {
    let database: BenchmarkDatabase
    let quick: Bool

    func run() async throws -> ResultTable {
        let rounds = quick ? 2 : 21
        let iterations = quick ? 20_000 : 2_000_000
        let store = try await database.openStore(namespace: "bench-read-\(runIdentifier)")
        try await store.setAndCommit(41, forKey: "counter")
        let memory = InMemoryStore()
        try memory.set(41, forKey: "counter")
        let postgresSettings = PostgresSettings(store: store)
        let memorySettings = InMemorySettings(store: memory)

        let subjects: [(name: String, read: () throws -> Int)] = [
            ("wrapper read (in-memory)", { sumOfWrapperReads(memorySettings, iterations) }),
            ("wrapper read (PostgreSQL)", { sumOfWrapperReads(postgresSettings, iterations) }),
            ("store.values read (in-memory)", { sumOfValuesReads(memory, iterations) }),
            ("store.values read (PostgreSQL)", { sumOfValuesReads(store, iterations) }),
            ("`try store.value(forKey:as:)` (in-memory)", { try sumOfValueForKeyReads(memory, iterations) }),
            ("`try store.value(forKey:as:)` (PostgreSQL)", { try sumOfValueForKeyReads(store, iterations) }),
        ]
        var perRead = [Samples](repeating: Samples(), count: subjects.count)
        // Round 0 warms caches and the reference registry up and is not kept.
        for round in 0...rounds {
            for (index, subject) in subjects.enumerated() {
                var sum = 0
                let seconds = try measure { sum = try subject.read() }
                guard sum == 41 * iterations else {
                    throw BenchmarkFailure("\(subject.name): \(iterations) reads summed to \(sum), not \(41 * iterations): a read gave a wrong value")
                }
                if round > 0 { perRead[index].append(seconds / Double(iterations)) }
            }
        }
        let roundTrip = try await selectRoundTrips(quick ? 50 : 2_000)

        var table = ResultTable(title: "a. Read an Int: PostgresStore vs InMemoryStore", ratioHeading: "p50 / its baseline's p50")
        for (index, subject) in subjects.enumerated() {
            let samples = perRead[index]
            let isBaseline = index % 2 == 0
            table.rows.append(
                .init(
                    name: "\(subject.name)\(isBaseline ? " — baseline" : "")", p50: Format.duration(samples.median),
                    p90: Format.duration(samples.percentile(90)),
                    opsPerSecond: 1 / samples.median, ratio: isBaseline ? "baseline" : Format.ratio(samples.median, perRead[index - 1].median)))
        }
        table.rows.append(
            .init(
                name: "context: one `SELECT 1` round trip, plain PostgresClient", p50: Format.duration(roundTrip.median),
                p90: Format.duration(roundTrip.percentile(90)), p99: Format.duration(roundTrip.percentile(99)), opsPerSecond: 1 / roundTrip.median,
                ratio: Format.ratio(roundTrip.median, perRead[1].median) + " a PostgreSQL wrapper read"))
        table.notes = [
            "\(rounds) rounds of \(Format.grouped(iterations)) reads per subject, taken in turn; p50 and p90 are over rounds, of the time per read.",
            "Every round's reads summed to 41 × reads (checked). The `SELECT 1` row is \(roundTrip.count) round trips, for scale: what a read that did go to the server would cost at least.",
        ]
        return table
    }

    /// Sequential `SELECT 1` round trips through a plain client: the least a networked read would cost.
    private func selectRoundTrips(_ count: Int) async throws -> Samples {
        try await database.withClient { client in
            var samples = Samples()
            for index in 0..<(count + count / 10) {
                let seconds = try await measureAsync {
                    for try await _ in try await client.query("SELECT 1") {}
                }
                if index >= count / 10 { samples.append(seconds) }
            }
            return samples
        }
    }
}

/// Settings as a user declares them, on each store.
protocol CounterSettings {
    var counter: Int { get }
}

struct PostgresSettings: CounterSettings, Sendable {
    @PostgresStorage<Int> var counter: Int
    init(store: PostgresStore) { _counter = PostgresStorage(wrappedValue: 0, "counter", in: store) }
}

struct InMemorySettings: CounterSettings, Sendable {
    @InMemoryStorage<Int> var counter: Int
    init(store: InMemoryStore) { _counter = InMemoryStorage(wrappedValue: 0, "counter", in: store) }
}

// The loops are generic and never inlined, so both stores run the same
// specialised loop, and the checked sum keeps the reads from being optimised away.

@inline(never)
func sumOfWrapperReads<Settings: CounterSettings>(_ settings: Settings, _ iterations: Int) -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= settings.counter }
    return sum
}

@inline(never)
func sumOfValueForKeyReads<Storage: UnderlyingStorage>(_ store: Storage, _ iterations: Int) throws -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= try store.value(forKey: "counter", as: Int.self) ?? 0 }
    return sum
}

@inline(never)
func sumOfValuesReads<Storage: UnderlyingStorage>(_ store: Storage, _ iterations: Int) -> Int {
    var sum = 0
    for _ in 0..<iterations {
        let value: Int = store.values.counter
        sum &+= value
    }
    return sum
}
