import Foundation
import Stowage
import StowageJSON
import StowageJSONFile
import StowageLocking
import Synchronization

/// One worker process: many threads on two stores of the same file, one
/// flat with the default options (the default store, which wrappers without
/// `in:` use) and one nested, compact and polling, which this process
/// coordinates with through the file as with another process.
enum SoakWorker {
    static let nestedOptions = JSONFileStore.Options(
        prettyPrinted: false,
        keyLayout: .nested(separator: SoakKeys.nestedSeparator),
        writeDelay: .zero,
        changeDetection: .polling(interval: .milliseconds(100))
    )

    static func run(_ options: SoakOptions) -> Int32 {
        let name = options.required("name")
        let process = options.integer("index", default: 0)
        let file = options.required("file")
        let threadCount = max(1, options.integer("threads", default: 8))
        let deadline = ContinuousClock.now + .seconds(options.number("until", default: 0) - Date().timeIntervalSince1970)
        let warmUpEnd = ContinuousClock.now + .seconds(options.number("warm-up", default: 5))
        let started = ContinuousClock.now

        let problems = ErrorLog()
        // Errors are problems; events (a write that went through on retry) are told, as by default.
        StowageReport.handler = { report in
            if case .error(let error) = report {
                problems.record("reported: \(error)")
            } else {
                FileHandle.standardError.write(Data("Stowage: \(report)\n".utf8))
            }
        }
        let url = URL(filePath: file)
        do {
            try JSONFileStore.configureDefault(url: url)
        } catch {
            problems.record("configureDefault threw: \(error)")
        }
        let flat = JSONFileStore.default
        let nested = JSONFileStore(url: url, options: nestedOptions)
        let memoryAtStart = MemorySample.current()

        let observation = ExternalObservation(flat: flat, nested: nested, problems: problems)

        let progress = (0..<threadCount).map { _ in ThreadProgress() }
        let tallies = Locked<[ThreadTally]>([])
        let threads = (0..<threadCount).map { index in
            JoinableThread(name: "\(name)-\(index)") {
                var worker = WorkerThread(process: process, thread: index, flat: flat, nested: nested, progress: progress[index], problems: problems)
                let tally = worker.run(until: deadline)
                tallies.withLock { $0.append(tally) }
            }
        }
        let reporter = ProgressReporter(progress: progress, warmUpEnd: warmUpEnd)
        for thread in threads { thread.join() }
        reporter.stop()

        for store in [flat, nested] {
            do { try store.flush() } catch { problems.record("the last flush threw: \(error)") }
        }
        let memoryAtEnd = MemorySample.current()
        let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
        ChildChannel.send(ChildChannel.finishedWriting)

        guard ChildChannel.receive() == ChildChannel.verify else {
            ChildChannel.note(name, "the coordinator went away before asking to verify")
            return 1
        }
        let merged = tallies.withLock { $0 }
        var expected: [String: StoredValue?] = [:]
        for tally in merged { expected.merge(tally.ownKeys) { $1 } }
        let ownKeys = (0..<threadCount).flatMap { thread in
            (0..<SoakKeys.ownKeysPerThread).map { index in
                OwnKey.make(
                    key: SoakKeys.own(process: process, thread: thread, index: index, nested: thread % 2 == 1),
                    index: index, process: process, thread: thread, in: thread % 2 == 1 ? nested : flat)
            }
        }
        let convergence = ConvergenceCheck(file: file, flat: flat, nested: nested, problems: problems).run(ownKeys: ownKeys, expected: expected)
        let (observed, streamed) = observation.finish()

        let serializer = JSONSerializer(formatting: .compact)
        var present: [String: String] = [:]
        var removed: [String] = []
        for (key, value) in expected {
            if let value, let bytes = try? serializer.serialize(value) {
                present[key] = String(decoding: bytes, as: UTF8.self)
            } else {
                removed.append(key)
            }
        }
        let report = WorkerReport(
            name: name,
            operations: merged.reduce(into: [:]) { total, tally in total.merge(tally.operations, uniquingKeysWith: +) },
            counterIncrements: merged.reduce(Array(repeating: 0, count: SoakKeys.counterCount)) { zip($0, $1.counterIncrements).map(+) },
            accountDeltas: merged.reduce(Array(repeating: 0, count: SoakKeys.accountCount)) { zip($0, $1.accountDeltas).map(+) },
            transfers: merged.reduce(0) { $0 + $1.transfers },
            abandonedTransfers: merged.reduce(0) { $0 + $1.abandonedTransfers },
            ownKeysPresent: present,
            ownKeysRemoved: removed.sorted(),
            sharedKeysWritten: merged.reduce(into: Set<Int>()) { $0.formUnion($1.sharedKeysWritten) }.sorted(),
            observedExternalChanges: observed,
            streamedExternalChanges: streamed,
            memoryAtStart: memoryAtStart,
            memoryAfterWarmUp: reporter.memoryAfterWarmUp ?? memoryAtEnd,
            memoryAtEnd: memoryAtEnd,
            seconds: seconds,
            convergenceMilliseconds: convergence,
            errorCount: problems.count,
            errors: problems.messages
        )
        return ReportFile.write(report, name: name, besides: file) && problems.count == 0 ? 0 : 1
    }
}
