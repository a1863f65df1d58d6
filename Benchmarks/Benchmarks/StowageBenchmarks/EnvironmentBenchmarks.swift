import Benchmark
import Configuration
import Foundation
import StowageEnvironment
import StowageInMemory

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Group 10: `EnvironmentStore`. The plugin runs each benchmark in a process
/// of its own, so a variable a setup adds with `setenv` is seen by that
/// benchmark alone, and `EnvironmentStore.default` is made (on first use)
/// after the setup.
func registerEnvironmentBenchmarks() {
    registerEnvironmentWrapperReadBenchmarks()
    registerEnvironmentReadBenchmarks()
    registerDotEnvBenchmarks()
}

/// The variable the wrapper-read benchmarks read: the key
/// `stowageBenchmarks.launchCount` under both Stowage's automatic mapping and
/// swift-configuration's environment key encoder.
private let launchCountVariable = "STOWAGE_BENCHMARKS_LAUNCH_COUNT"

/// Sets the variable to 41, then tops the process environment up to 100
/// variables (as 10f does), so that `getenv` scans a realistic environment: the
/// variable comes after those the process started with, and before the added ones.
private func setUpLaunchCountVariable() {
    setenv(launchCountVariable, "41", 1)
    ProcessEnvironmentFixture.fill(to: 100)
}

/// Settings on the default environment store, as a user declares them.
struct EnvironmentSettings: Sendable {
    @EnvironmentStorage("stowageBenchmarks.launchCount") var launchCount = 0
}

/// One call per sample, measured by hand around the part that counts.
private func environmentConfiguration(
    timeUnits: BenchmarkTimeUnits,
    metrics: [BenchmarkMetric] = [],
    maxDuration: Duration = .seconds(2)
) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal] + metrics,
        timeUnits: timeUnits,
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: maxDuration,
        maxIterations: 10_000
    )
}

// MARK: - 10a–10e Wrapper reads

/// Target 10 (reads): an `@EnvironmentStorage` wrapper read is the core's
/// cached read, the same speed as an `@InMemoryStorage` one (10b, 1a, 9b):
/// the variable's text is parsed once, when the reference first reads it.
/// 10c–10e show what reading the variable directly costs.
func registerEnvironmentWrapperReadBenchmarks() {
    let settingsState = SetupState<EnvironmentSettings>()
    Benchmark(
        "10a Wrapper read - Stowage @EnvironmentStorage settings.launchCount",
        closure: { benchmark in
            let settings = settingsState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(settings.launchCount)
            }
        },
        setup: {
            setUpLaunchCountVariable()
            let value = EnvironmentSettings()
            precondition(value.launchCount == 41 && EnvironmentStore.default.variableName(forKey: "stowageBenchmarks.launchCount") == launchCountVariable)
            settingsState.value = value
        }
    )

    Benchmark("10b Wrapper read - baseline @InMemoryStorage settings.launchCount (as 1a)") { benchmark in
        let settings = Settings()
        settings.launchCount = 41
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(settings.launchCount)
        }
    }

    // The name is made a C string once, outside the loop: 10c is `getenv` alone.
    Benchmark(
        "10c Wrapper read - context getenv on the same variable",
        closure: { benchmark in
            launchCountVariable.withCString { name in
                for _ in benchmark.scaledIterations {
                    blackHole(getenv(name))
                }
            }
        },
        setup: { setUpLaunchCountVariable() }
    )

    // What a program that reads the variable itself, as an `Int`, writes on each read.
    Benchmark(
        "10d Wrapper read - context getenv + Int(String(cString:)), name converted on each call",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(getenv(launchCountVariable).flatMap { Int(String(cString: $0)) })
            }
        },
        setup: { setUpLaunchCountVariable() }
    )

    let readerState = SetupState<ConfigReader>()
    Benchmark(
        "10e Wrapper read - context swift-configuration ConfigReader.int(forKey:) over EnvironmentVariablesProvider",
        closure: { benchmark in
            let reader = readerState.unwrapped
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(reader.int(forKey: "stowageBenchmarks.launchCount"))
            }
        },
        setup: {
            setUpLaunchCountVariable()
            let value = ConfigReader(provider: EnvironmentVariablesProvider())
            precondition(value.int(forKey: "stowageBenchmarks.launchCount") == 41)
            readerState.value = value
        }
    )
}

// MARK: - 10f–10g Reading the process environment

/// Target 10 (building the store): `EnvironmentStore()`, which is how
/// `EnvironmentStore.default` is made, with about 100 variables in the process
/// environment, takes at most 2x one `ProcessInfo.processInfo.environment`.
///
/// The setup tops the environment up to 100 variables with `setenv` (names
/// `STOWAGE_BENCHMARKS_VARIABLE_<n>`, values 4 to 77 bytes, as paths, URLs,
/// flags and numbers are); the `variables` and `environment bytes` metrics show
/// what each sample read. Each result is kept until the clock stops, so neither
/// side pays for freeing its result.
func registerEnvironmentReadBenchmarks() {
    let variables = BenchmarkMetric.custom("variables", polarity: .prefersSmaller, useScalingFactor: false)
    let bytes = BenchmarkMetric.custom("environment bytes", polarity: .prefersSmaller, useScalingFactor: false)
    let inherited = BenchmarkMetric.custom("variables before the top-up", polarity: .prefersSmaller, useScalingFactor: false)
    let configuration = environmentConfiguration(timeUnits: .microseconds, metrics: [variables, bytes, inherited])
    func record(_ benchmark: Benchmark) {
        let (count, size) = ProcessEnvironmentFixture.size()
        benchmark.measurement(variables, count)
        benchmark.measurement(bytes, size)
        benchmark.measurement(inherited, ProcessEnvironmentFixture.inheritedCount ?? count)
    }

    Benchmark(
        "10f Read environment of 100 variables - Stowage EnvironmentStore()",
        configuration: configuration,
        closure: { benchmark in
            benchmark.startMeasurement()
            let store = EnvironmentStore()
            benchmark.stopMeasurement()
            blackHole(store)
            record(benchmark)
        },
        setup: {
            ProcessEnvironmentFixture.fill(to: 100)
            precondition(EnvironmentStore().environmentForChildProcess() == ProcessInfo.processInfo.environment)
        }
    )

    Benchmark(
        "10g Read environment of 100 variables - baseline ProcessInfo.processInfo.environment",
        configuration: configuration,
        closure: { benchmark in
            benchmark.startMeasurement()
            let environment = ProcessInfo.processInfo.environment
            benchmark.stopMeasurement()
            blackHole(environment)
            record(benchmark)
        },
        setup: { ProcessEnvironmentFixture.fill(to: 100) }
    )
}

enum ProcessEnvironmentFixture {
    /// How many variables the process started with, before `fill(to:)` added any.
    nonisolated(unsafe) static var inheritedCount: Int?

    /// Adds variables until the process environment holds `count` of them.
    static func fill(to count: Int) {
        if inheritedCount == nil { inheritedCount = size().count }
        let values = [
            "/usr/local/lib/stowage/benchmarks",
            "https://config.internal.example.com:8443/v2/services/stowage?region=eu-west-1",
            "true",
            "8080",
            "en_US.UTF-8",
            "/home/stowage/.cache/benchmarks/build/release",
            "0.75",
            "info,stowage=debug,network=warn",
        ]
        var index = 0
        while size().count < count {
            setenv("STOWAGE_BENCHMARKS_VARIABLE_\(index)", values[index % values.count], 1)
            index += 1
        }
    }

    /// The number of `NAME=value` entries in `environ`, and their bytes.
    static func size() -> (count: Int, bytes: Int) {
        var count = 0
        var bytes = 0
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return (0, 0) }
        while let pointer = entry.pointee {
            count += 1
            bytes += strlen(pointer)
            entry += 1
        }
        return (count, bytes)
    }
}

// MARK: - 10h–10j Parsing a .env file

/// Target 10 (`.env`): parsing a 1,000-line `.env` file, reported in
/// milliseconds. 10h is the whole `EnvironmentStore(dotEnv:variables:)`:
/// reading the file, checking it is UTF-8, parsing, `${NAME}` expansion,
/// merging over the (empty) given variables and making the store. 10j is the
/// file read alone; 10i is swift-configuration's `.env` provider on the same
/// file, whose parser splits lines at the first `=` and knows no quotes,
/// escapes, `export` or expansion (so it reads different values).
func registerDotEnvBenchmarks() {
    let configuration = environmentConfiguration(timeUnits: .microseconds, maxDuration: .seconds(3))
    struct Fixture {
        var directory: TemporaryDirectory
        var url: URL
    }
    func setUp(_ state: SetupState<Fixture>) throws {
        let directory = try TemporaryDirectory("dotenv")
        let url = URL(filePath: directory.path("fixture-1000.env"))
        try DotEnvFixture.text.write(to: url, atomically: false, encoding: .utf8)
        state.value = Fixture(directory: directory, url: url)
    }

    let store = SetupState<Fixture>()
    Benchmark(
        "10h Parse 1,000-line .env file - Stowage EnvironmentStore(dotEnv:variables: [:])",
        configuration: configuration,
        closure: { benchmark in
            let url = store.unwrapped.url
            benchmark.startMeasurement()
            let result = try EnvironmentStore(dotEnv: .init(url: url), variables: [:])
            benchmark.stopMeasurement()
            blackHole(result)
        },
        setup: {
            try setUp(store)
            let result = try EnvironmentStore(dotEnv: .init(url: store.unwrapped.url), variables: [:])
            let variables = result.environmentForChildProcess()
            precondition(variables.count == DotEnvFixture.variableCount)
            precondition(variables["SERVICE_7_URL"] == "postgres://app_7:p@ss \"word\" 7@db-7.internal.example.com:5439/app")
            precondition(variables["SERVICE_7_DATA_DIR"] == "/srv/app/data/service-7")
            precondition(variables["SERVICE_7_LOG_LEVEL"] == "info")
            precondition(variables["SERVICE_7_GREETING"] == "Hello, ${USER}! # not a comment")
            precondition(variables["SERVICE_7_TIMEOUT"] == "30")
        },
        teardown: { store.value?.directory.remove() }
    )

    let provider = SetupState<Fixture>()
    Benchmark(
        "10i Parse 1,000-line .env file - context swift-configuration EnvironmentVariablesProvider(environmentFilePath:)",
        configuration: configuration,
        closure: { benchmark in
            let path = provider.unwrapped.url.path(percentEncoded: false)
            benchmark.startMeasurement()
            let result = try await EnvironmentVariablesProvider(environmentFilePath: configPath(path))
            benchmark.stopMeasurement()
            blackHole(result)
        },
        setup: { try setUp(provider) },
        teardown: { provider.value?.directory.remove() }
    )

    let read = SetupState<Fixture>()
    Benchmark(
        "10j Parse 1,000-line .env file - context the file read alone, Data(contentsOf:) + String(validating:)",
        configuration: configuration,
        closure: { benchmark in
            let url = read.unwrapped.url
            benchmark.startMeasurement()
            let text = String(validating: try Data(contentsOf: url), as: UTF8.self)
            benchmark.stopMeasurement()
            blackHole(text)
        },
        setup: { try setUp(read) },
        teardown: { read.value?.directory.remove() }
    )
}

/// swift-configuration takes a SystemPackage `FilePath`, a module this target
/// does not import; `FilePath` makes itself from a configuration string.
private func configPath<Path: ExpressibleByConfigString>(_ path: String) -> Path {
    Path(configString: path)!
}

/// A generated `.env` file of exactly 1,000 lines (41,207 bytes), as a service's
/// checked-in defaults look: a first line, then 50 sections of 20 lines, each
/// with 2 comments, 16 assignments and 2 blank lines (the file ends after the
/// last assignment). Of each section's assignments, 4 are `export`ed, 4
/// double-quoted (with escapes), 2 single-quoted, 1 has a trailing comment, and
/// 3 use `${NAME}` or `${NAME:-fallback}` (6 expansions).
enum DotEnvFixture {
    static let sections = 50
    static let variableCount = 1 + sections * 16

    static let text: String = {
        var lines: [String] = ["APP_ROOT=/srv/app"]
        for n in 0..<sections {
            lines.append("# Service \(n): connection settings for the eu-west-\(n % 3 + 1) region")
            lines.append("SERVICE_\(n)_HOST=db-\(n).internal.example.com")
            lines.append("SERVICE_\(n)_PORT=\(5432 + n)")
            lines.append("export SERVICE_\(n)_USER=app_\(n)")
            lines.append("SERVICE_\(n)_PASSWORD=\"p@ss \\\"word\\\" \(n)\"")
            lines.append("SERVICE_\(n)_URL=\"postgres://${SERVICE_\(n)_USER}:${SERVICE_\(n)_PASSWORD}@${SERVICE_\(n)_HOST}:${SERVICE_\(n)_PORT}/app\"")
            lines.append("SERVICE_\(n)_TIMEOUT=30   # seconds")
            lines.append("SERVICE_\(n)_MAX_CONNECTIONS=\(100 + n)")
            lines.append("")
            lines.append("# Behaviour")
            lines.append("export SERVICE_\(n)_ENABLED=true")
            lines.append("SERVICE_\(n)_RATIO=0.75")
            lines.append("SERVICE_\(n)_TAGS=alpha,beta,gamma,delta")
            lines.append("SERVICE_\(n)_LOG_LEVEL=${LOG_LEVEL:-info}")
            lines.append("SERVICE_\(n)_GREETING='Hello, ${USER}! # not a comment'")
            lines.append("export SERVICE_\(n)_DATA_DIR=\"${APP_ROOT}/data/service-\(n)\"")
            lines.append("SERVICE_\(n)_RETRY_POLICY='{\"retries\": 3, \"backoff\": [1, 2, 4]}'")
            lines.append("export SERVICE_\(n)_DESCRIPTION=\"Handles requests for tenant \(n)\\tand writes an audit log\"")
            lines.append("SERVICE_\(n)_API_KEY=\(String(repeating: String(n % 10), count: 8))f3a9c2e17b4d6085aa91c3e2")
            lines.append("")
        }
        lines.removeLast()
        precondition(lines.count == 1_000)
        return lines.joined(separator: "\n") + "\n"
    }()
}
