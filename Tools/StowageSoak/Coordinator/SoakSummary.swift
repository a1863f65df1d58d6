import Foundation

/// The report a person reads at the end of a soak.
struct SoakSummary {
    let workers: [WorkerReport]
    let editor: EditorReport?
    let checker: FileChecker.Result
    let notes: [String]
    let seconds: Double
    let rssGrowthLimitKiB: Int

    func print(failures: [String]) {
        Swift.print("")
        Swift.print("process   operations   per second   rss start   rss warm   rss end   peak start   peak end   growth   heap warm   heap end")
        var total = 0
        for report in workers {
            let operations = report.operations.values.reduce(0, +)
            total += operations
            row(report.name, operations, report.seconds, report.memoryAtStart, report.memoryAfterWarmUp, report.memoryAtEnd)
        }
        if let editor {
            total += editor.edits + editor.touches
            row(editor.name, editor.edits + editor.touches, editor.seconds, editor.memoryAtStart, editor.memoryAfterWarmUp, editor.memoryAtEnd)
        }
        Swift.print(pad("total", 8) + pad("\(total)", 13, right: true))
        let limit = rssGrowthLimitKiB > 0 ? "the limit is \(MemorySample.mebibytes(rssGrowthLimitKiB))" : "not checked"
        Swift.print("(growth is rss end minus rss warm, \(limit); heap is what malloc has handed out and not had back)")

        var kinds: [String: Int] = [:]
        for report in workers { kinds.merge(report.operations, uniquingKeysWith: +) }
        Swift.print("")
        Swift.print("operations by kind: " + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if let editor {
            let counters = (0..<SoakKeys.counterCount).map { counter in
                "\(workers.reduce(editor.counterIncrements[counter]) { $0 + $1.counterIncrements[counter] })"
            }
            Swift.print("counters (sums of every process's increments, the editor's included): " + counters.joined(separator: ", "))
            Swift.print("editor: \(editor.edits) edits under the lock, \(editor.touches) touches, last generation \(editor.generation)")
        }
        let transfers = workers.reduce(0) { $0 + $1.transfers }
        let abandoned = workers.reduce(0) { $0 + $1.abandonedTransfers }
        let accounts = (0..<SoakKeys.accountCount).map { account in "\(workers.reduce(0) { $0 + $1.accountDeltas[account] })" }
        Swift.print("transactions: \(transfers) committed, \(abandoned) abandoned; accounts " + accounts.joined(separator: ", "))
        let present = workers.reduce(0) { $0 + $1.ownKeysPresent.count }
        let removed = workers.reduce(0) { $0 + $1.ownKeysRemoved.count }
        Swift.print("own keys checked: \(present) present, \(removed) removed")
        Swift.print(
            "change detection: "
                + workers.map {
                    "\($0.name) observer \($0.observedExternalChanges), stream \($0.streamedExternalChanges), converged in \($0.convergenceMilliseconds.map { "\($0) ms" } ?? "never")"
                }.joined(separator: "; "))
        Swift.print(
            "file checks during the run: \(checker.checks) (\(checker.crossChecks) also with Stowage's parser), largest version \(checker.largestFile) bytes")
        for note in notes { Swift.print(note) }
        Swift.print(String(format: "duration: %.1f s", seconds))
        Swift.print("")
        if failures.isEmpty {
            Swift.print("RESULT: PASS, every invariant held")
        } else {
            Swift.print("RESULT: FAIL, \(failures.count) invariant failures:")
            for failure in failures { Swift.print("  - \(failure)") }
        }
    }

    private func row(_ name: String, _ operations: Int, _ seconds: Double, _ start: MemorySample, _ warm: MemorySample, _ end: MemorySample) {
        let rate = seconds > 0 ? String(format: "%.0f", Double(operations) / seconds) : "-"
        Swift.print(
            pad(name, 8) + pad("\(operations)", 13, right: true) + pad(rate, 13, right: true)
                + pad(MemorySample.mebibytes(start.residentKiB), 12, right: true) + pad(MemorySample.mebibytes(warm.residentKiB), 11, right: true)
                + pad(MemorySample.mebibytes(end.residentKiB), 10, right: true) + pad(MemorySample.mebibytes(start.peakKiB), 13, right: true)
                + pad(MemorySample.mebibytes(end.peakKiB), 11, right: true) + pad(MemorySample.mebibytes(end.residentKiB - warm.residentKiB), 9, right: true)
                + pad(warm.heapInUseKiB.map(MemorySample.mebibytes) ?? "-", 12, right: true)
                + pad(end.heapInUseKiB.map(MemorySample.mebibytes) ?? "-", 11, right: true))
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(1, width - text.count))
        return right ? padding + text : text + padding
    }
}
