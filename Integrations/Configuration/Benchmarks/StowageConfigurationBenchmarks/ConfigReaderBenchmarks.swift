import Foundation
import StowageConfiguration
import StowageInMemory
import StowageJSONFile
import StowageBenchmarkSupport

/// Group a: a `ConfigReader` read, and the provider call beneath it, through
/// `StowageConfigProvider` over an `InMemoryStore` and a `JSONFileStore`,
/// against swift-configuration's own `InMemoryProvider`.
struct ConfigReaderBenchmarks {
    let quick: Bool

    func run() throws -> ResultTable {
        let rounds = quick ? 3 : 21
        let iterations = quick ? 20_000 : 500_000
        let folder = FileManager.default.temporaryDirectory.appending(path: "stowage-configuration-benchmarks-\(getpid())", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let memoryStore = InMemoryStore(["server.port": 41])
        let file = JSONFileStore(url: folder.appending(path: "settings.json"))
        try file.set(41, forKey: "server.port")
        try file.flush()
        let baseline = InMemoryProvider(values: [AbsoluteConfigKey(["server", "port"]): 41])
        let overMemory = StowageConfigProvider(memoryStore)
        let overFile = StowageConfigProvider(file)

        let subjects = [
            Subject(name: "`reader.int(forKey:)`, InMemoryProvider — baseline") { sumOfReaderReads(ConfigReader(provider: baseline), $0) },
            Subject(name: "`reader.int(forKey:)`, StowageConfigProvider over InMemoryStore") { sumOfReaderReads(ConfigReader(provider: overMemory), $0) },
            Subject(name: "`reader.int(forKey:)`, StowageConfigProvider over JSONFileStore") { sumOfReaderReads(ConfigReader(provider: overFile), $0) },
            Subject(name: "`provider.value(forKey:type:)`, InMemoryProvider — baseline") { try sumOfProviderReads(baseline, $0) },
            Subject(name: "`provider.value(forKey:type:)`, StowageConfigProvider over InMemoryStore") { try sumOfProviderReads(overMemory, $0) },
            Subject(name: "`provider.value(forKey:type:)`, StowageConfigProvider over JSONFileStore") { try sumOfProviderReads(overFile, $0) },
        ]
        let perRead = try measureRounds(subjects, rounds: rounds, iterations: iterations, expectedSum: 41 * iterations)
        var table = ResultTable(
            title: "a. Read an Int through swift-configuration: StowageConfigProvider vs InMemoryProvider", ratioHeading: "p50 / baseline p50")
        for (index, subject) in subjects.enumerated() {
            let baselineIndex = index < 3 ? 0 : 3
            table.rows.append(
                .init(
                    name: subject.name, p50: Format.duration(perRead[index].median), p90: Format.duration(perRead[index].percentile(90)),
                    opsPerSecond: 1 / perRead[index].median,
                    ratio: index == baselineIndex ? "baseline" : Format.ratio(perRead[index].median, perRead[baselineIndex].median)))
        }
        table.notes = [
            "\(rounds) rounds of \(Format.grouped(iterations)) reads of `server.port` (holding 41) per subject, taken in turn; p50 and p90 are over rounds, of the time per read.",
            "Every round's reads summed to 41 × reads (checked). The key is made once, outside the loop, for every subject alike.",
        ]
        return table
    }
}

private let portKey: ConfigKey = ["server", "port"]
private let absolutePortKey = AbsoluteConfigKey(["server", "port"])

@inline(never)
func sumOfReaderReads(_ reader: ConfigReader, _ iterations: Int) -> Int {
    var sum = 0
    for _ in 0..<iterations { sum &+= reader.int(forKey: portKey) ?? 0 }
    return sum
}

@inline(never)
func sumOfProviderReads(_ provider: some ConfigProvider, _ iterations: Int) throws -> Int {
    var sum = 0
    for _ in 0..<iterations {
        if case .int(let value)? = try provider.value(forKey: absolutePortKey, type: .int).value?.content { sum &+= value }
    }
    return sum
}
