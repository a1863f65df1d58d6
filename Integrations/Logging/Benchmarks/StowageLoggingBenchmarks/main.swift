// What a logged report costs: a store event through StowageLogRouter against
// the same line (message, error and metadata) logged directly, both through
// one Logger whose handler formats every line and drops it, and both measured
// in this run. `swift run -c release --package-path Integrations/Logging
// StowageLoggingBenchmarks`, or `--quick` to only check that both log.
import Foundation
import Logging
import Stowage
import StowageLogging

/// Formats each line as a text handler would, then drops it: the cost of logging without the cost of output.
struct FormattingHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    let lines: Counter

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let text = "\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        lines.add(text.utf8.count)
    }
}

/// Counts lines and bytes, so the optimizer can not drop the formatting.
final class Counter: @unchecked Sendable {
    var lines = 0
    var bytes = 0
    func add(_ count: Int) {
        lines += 1
        bytes &+= count
    }
}

let quick = CommandLine.arguments.contains("--quick")
let counter = Counter()
let logger = Logger(label: "benchmark") { _ in FormattingHandler(lines: counter) }
let router = StowageLogRouter(logger: logger)
let store = "JSONFileStore(/srv/app/settings.json)"
let event = StoreEvent(
    .writeRetriedAndSucceeded, severity: .notice, storeName: store,
    message: "/srv/app/settings.json was written after 1 failed attempt; no change was lost.",
    details: ["attempts": "2", "path": "/srv/app/settings.json"])

/// The same line, written by hand as a program would log it.
func logDirectly() {
    logger.notice(
        "\(store): /srv/app/settings.json was written after 1 failed attempt; no change was lost.",
        metadata: [
            "stowage.event": "writeRetriedAndSucceeded", "stowage.store": "\(store)",
            "stowage.attempts": "2", "stowage.path": "/srv/app/settings.json",
        ])
}

/// Nanoseconds per call: the median of `batches` batches of `perBatch` calls.
func measure(batches: Int, perBatch: Int, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<batches {
        let start = ContinuousClock.now
        for _ in 0..<perBatch { body() }
        let elapsed = ContinuousClock.now - start
        samples.append((Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(perBatch))
    }
    return samples.sorted()[samples.count / 2]
}

let (batches, perBatch) = quick ? (3, 100) : (31, 20_000)
// Warm both paths, then alternate, so drift in the machine's speed falls on both.
_ = measure(batches: 1, perBatch: perBatch) { router.log(event) }
_ = measure(batches: 1, perBatch: perBatch) { logDirectly() }
var routed: [Double] = []
var direct: [Double] = []
for _ in 0..<(quick ? 1 : 5) {
    routed.append(measure(batches: batches, perBatch: perBatch) { router.log(event) })
    direct.append(measure(batches: batches, perBatch: perBatch) { logDirectly() })
}
let routedMedian = routed.sorted()[routed.count / 2]
let directMedian = direct.sorted()[direct.count / 2]
guard counter.lines > 0, counter.bytes > 0 else {
    print("StowageLoggingBenchmarks: nothing was logged")
    exit(1)
}
print("| Benchmark | ns per line |")
print("| --- | ---: |")
print("| a store event through StowageLogRouter | \(Int(routedMedian.rounded())) |")
print("| the same line logged directly (baseline) | \(Int(directMedian.rounded())) |")
print("| ratio | \(String(format: "%.2f", routedMedian / directMedian))x |")
