// A load test of OFREP's bulk evaluation on loopback: 100 flags, a context per request from a
// set of 1,000 users, sent at a fixed rate for a bounded time from a client in the same process;
// latency from each request's scheduled time (so a slow answer delays no measurement), beside
// two baselines measured in the same run: the same 100 evaluations in-process, and a body of
// the same size served by the same server without evaluating anything.
//
//   swift run -c release --package-path Integrations/HTTP StowageHTTPBenchmarks           # 400 requests/s for 10 s
//   swift run -c release --package-path Integrations/HTTP StowageHTTPBenchmarks --quick   # 100 requests/s for 2 s, CI's result check
//
// It exits with 1 when a response is not 200 with every flag, or a request fails.
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Stowage
import StowageBenchmarkSupport
import StowageFlags
import StowageHTTP
import StowageInMemory

let quick = CommandLine.arguments.contains("--quick")
let rate = quick ? 100.0 : 400.0
let seconds = quick ? 2.0 : 10.0
let flagCount = 100
let token = "benchmark-token"

/// 100 flags in flagd's format: a third targeted by an attribute, a third split by percentage, a third static.
func definitions() -> String {
    var flags: [String] = []
    for index in 0..<flagCount {
        switch index % 3 {
        case 0:
            flags.append(
                #""flag-\#(index)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"in": [{"var": "plan"}, ["pro", "team"]]}, "on", "off"]}}"#
            )
        case 1:
            flags.append(
                #""flag-\#(index)": {"state": "ENABLED", "variants": {"a": "blue", "b": "green"}, "defaultVariant": "a", "targeting": {"fractional": [["a", 50], ["b", 50]]}}"#
            )
        default:
            flags.append(#""flag-\#(index)": {"state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "high"}"#)
        }
    }
    return #"{"flags": {"# + flags.joined(separator: ", ") + "}}"
}

let plans = ["free", "pro", "team", "enterprise"]
func contextBody(_ user: Int) -> String {
    #"{"context": {"targetingKey": "user-\#(user)", "plan": "\#(plans[user % plans.count])", "country": "CA"}}"#
}

let flags = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore())
_ = try flags.update(with: Data(definitions().utf8))
let keys = flags.configurations.keys.sorted()
guard keys.count == flagCount else {
    print("StowageHTTPBenchmarks: \(keys.count) flags configured, not \(flagCount)")
    exit(1)
}

// The in-process baseline: the same evaluations, no HTTP, no JSON.
var inProcess = Samples()
for round in 0..<(quick ? 2_000 : 20_000) {
    let context = EvaluationContext(targetingKey: "user-\(round % 1000)", attributes: ["plan": .string(plans[round % plans.count]), "country": "CA"])
    let start = Timestamp.now()
    var served = 0
    for key in keys where flags.details(forKey: key, for: context).errorCode == nil { served += 1 }
    inProcess.append(start.elapsed)
    guard served == flagCount else {
        print("StowageHTTPBenchmarks: \(served) of \(flagCount) flags evaluated in-process")
        exit(1)
    }
}

// The server: OFREP, and a body of a bulk response's size served as it is.
let router = Router()
OFREPEndpoint(serving: flags, accessTokens: AccessTokens([token])).addRoutes(to: router)
let sampleBody = ByteBuffer(string: String(repeating: "x", count: 6_000))
router.post("/static") { _, _ in Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: sampleBody)) }
let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
// Quiet: it is cancelled at the end, which it would log as an error.
var quiet = Logger(label: "StowageHTTPBenchmarks")
quiet.logLevel = .critical
let server = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { portContinuation.yield($0.localAddress?.port ?? 0) }, logger: quiet)
let serving = Task { try await server.runService(gracefulShutdownSignals: []) }
guard let port = await ports.first(where: { _ in true }) else {
    print("StowageHTTPBenchmarks: the server did not start")
    exit(1)
}

let client = HTTPClient(
    eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
    configuration: .init(connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)))

/// Sends `rate` requests a second for `seconds`, each at its scheduled time; their latencies, from that time.
func load(path: String, expectedFlags: Int?) async throws -> (Samples, Double) {
    let interval = 1.0 / rate
    let total = Int(rate * seconds)
    let start = Timestamp.now()
    let latencies = try await withThrowingTaskGroup(of: Double.self) { group in
        for index in 0..<total {
            let scheduled = Double(index) * interval
            let wait = scheduled - start.elapsed
            if wait > 0 { try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
            group.addTask {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: contextBody(index % 1000)))
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                let latency = start.elapsed - scheduled
                guard response.status == .ok else { throw BenchmarkFailure("\(path) answered \(response.status)") }
                if let expectedFlags {
                    let text = String(buffer: body)
                    let served = text.components(separatedBy: #""key":"#).count - 1
                    guard served == expectedFlags, !text.contains("errorCode") else { throw BenchmarkFailure("\(path) served \(served) flags") }
                }
                return latency
            }
        }
        var latencies = Samples()
        for try await latency in group { latencies.append(latency) }
        return latencies
    }
    return (latencies, Double(latencies.count) / start.elapsed)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

do {
    _ = try await load(path: "/static", expectedFlags: nil)  // warms the connections up
    let (bulk, bulkRate) = try await load(path: "/ofrep/v1/evaluate/flags", expectedFlags: flagCount)
    let (file, fileRate) = try await load(path: "/static", expectedFlags: nil)
    var table = ResultTable(
        title: "OFREP bulk evaluation of \(flagCount) flags on loopback, \(Int(rate)) requests/s for \(Format.significant(seconds)) s",
        ratioHeading: "p50 / static p50", layout: .latency)
    table.rows = [
        ResultTable.Row(
            name: "the same evaluations in-process (baseline)", p50: Format.duration(inProcess.median), p90: Format.duration(inProcess.percentile(90)),
            p99: Format.duration(inProcess.percentile(99)), ratio: "—", samples: inProcess.count, maximum: Format.duration(inProcess.maximum)),
        ResultTable.Row(
            name: "a body of the same size, served (baseline)", p50: Format.duration(file.median), p90: Format.duration(file.percentile(90)),
            p99: Format.duration(file.percentile(99)), ratio: "1.00x", samples: file.count, maximum: Format.duration(file.maximum)),
        ResultTable.Row(
            name: "POST /ofrep/v1/evaluate/flags", p50: Format.duration(bulk.median), p90: Format.duration(bulk.percentile(90)),
            p99: Format.duration(bulk.percentile(99)), ratio: Format.ratio(bulk.median, file.median), samples: bulk.count,
            maximum: Format.duration(bulk.maximum)),
    ]
    table.notes = [
        "Throughput held: \(Format.rate(bulkRate)) requests/s of bulk evaluation (\(Format.rate(bulkRate * Double(flagCount))) flag evaluations/s), \(Format.rate(fileRate)) of the static body; asked: \(Format.rate(rate)).",
        "Client and server share the machine's cores; every response was checked: 200, \(flagCount) flags, no error.",
    ]
    print(table.markdown)
} catch {
    print("StowageHTTPBenchmarks: \(error)")
    exit(1)
}
try await client.shutdown().get()
serving.cancel()
