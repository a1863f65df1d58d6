import Stowage
import StowageLocking

extension StorageConformanceSuite {
    func checkCompareAndSwap(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "compareAndSwap.key"
        // (expected, replacement, whether it must replace, the value afterwards)
        let steps: [(StoredValue?, StoredValue?, Bool, StoredValue?)] = [
            (nil, 1, true, 1),
            (nil, 2, false, 1),
            (5, 2, false, 1),
            ("1", 2, false, 1),
            (1, 2, true, 2),
            (2, "text", true, "text"),
            ("other", 3, false, "text"),
            ("text", nil, true, nil),
            ("text", 4, false, nil),
            (nil, nil, true, nil),
        ]
        for (expected, replacement, mustReplace, after) in steps {
            let call = "replaceStoredValue(forKey: \"\(key)\", expecting: \(describe(expected)), with: \(describe(replacement)))"
            let before: String
            do { before = describe(try storage.storedValue(forKey: key, .granted)) } catch { before = "a value that could not be read" }
            guard let replaced = recorder.attempt(call, { try storage.replaceStoredValue(forKey: key, expecting: expected, with: replacement, .granted) })
            else {
                return
            }
            recorder.expect(
                replaced == mustReplace,
                "\(call) returned \(replaced) while the key held \(before); expected \(mustReplace).")
            if let current = recorder.attempt("storedValue(forKey:) after \(call)", { try storage.storedValue(forKey: key, .granted) }) {
                recorder.expect(
                    current == after,
                    "After \(call) on a key holding \(before), storedValue(forKey:) returned \(describe(current)); expected \(describe(after)).")
            }
        }
    }

    func checkConcurrentModify(_ recorder: IssueRecorder) async throws {
        guard let (tasks, iterations, total) = concurrencyBounds(recorder) else { return }
        let storage = try freshStorage()
        let key = "concurrency.counter"
        // References of two types are two objects, so they contend only through the store.
        let narrow = storage.reference(forKey: key, as: Int.self)
        let wide = storage.reference(forKey: key, as: Int64.self)
        // On threads, not tasks: see runOnParallelThreads for why.
        await runOnParallelThreads(tasks) { task in
            for iteration in 0..<iterations {
                let done: Void? = recorder.attempt("Task \(task) incrementing with modify, iteration \(iteration),") {
                    // The transform runs between the read and the compare-and-swap; yielding
                    // there lets another writer in, as a slow transform in an app would.
                    if task.isMultiple(of: 2) {
                        try narrow.modify { count in
                            yieldThread()
                            count = (count ?? 0) + 1
                        }
                    } else {
                        try wide.modify { count in
                            yieldThread()
                            count = (count ?? 0) + 1
                        }
                    }
                }
                guard done != nil else { return }
            }
        }
        let work = "\(tasks) tasks each made \(iterations) modify increments of \"\(key)\""
        let context = "After \(work)"
        if let stored = recorder.attempt("\(context), storedValue(forKey:)", { try storage.storedValue(forKey: key, .granted) }) {
            recorder.expect(
                stored == .signedInteger(Int64(total)),
                "\(context), storedValue(forKey:) returned \(describe(stored)); expected \(total). A lost update means "
                    + "replaceStoredValue(forKey:expecting:with:) is not atomic with the store's other writes.")
        }
        expectReference(narrow, reads: total, after: work, recorder)
    }

    func checkConcurrentWritersOfDistinctKeys(_ recorder: IssueRecorder) async throws {
        guard let (tasks, iterations, _) = concurrencyBounds(recorder) else { return }
        let storage = try freshStorage()
        // On threads, not tasks: see runOnParallelThreads for why.
        await runOnParallelThreads(tasks) { task in
            for iteration in 0..<iterations {
                let key = "concurrency.distinct.\(task).\(iteration)"
                let value = "task \(task), iteration \(iteration)"
                let done: Void? = recorder.attempt("Task \(task) writing \"\(key)\"") {
                    // Half through references, half through the store API, as an app would.
                    if iteration.isMultiple(of: 2) {
                        try storage.reference(forKey: key, as: String.self).set(value)
                    } else {
                        try storage.set(value, forKey: key)
                    }
                }
                guard done != nil else { return }
                yieldThread()
            }
        }
        for task in 0..<tasks {
            for iteration in 0..<iterations {
                let key = "concurrency.distinct.\(task).\(iteration)"
                let value = "task \(task), iteration \(iteration)"
                if let stored = recorder.attempt("Reading \"\(key)\" after the concurrent writes", { try storage.storedValue(forKey: key, .granted) }) {
                    recorder.expect(
                        stored == .string(value),
                        "After \(tasks) tasks concurrently wrote \(iterations) keys each, \"\(key)\" held \(describe(stored)); "
                            + "expected \"\(value)\", written by that task alone.")
                }
            }
        }
    }

    func checkReadsDuringWrites(_ recorder: IssueRecorder) async throws {
        guard let (tasks, iterations, _) = concurrencyBounds(recorder) else { return }
        let writers = max(1, tasks / 2)
        let readers = max(1, tasks - writers)
        let storage = try freshStorage()
        let key = "concurrency.readsDuringWrites"
        let initial = WrittenRecord(writer: -1, iteration: 0)
        guard recorder.attempt("Writing the initial value", { try storage.set(initial.value, forKey: key) }) != nil else { return }
        let reference = storage.reference(forKey: key, as: [String: Int].self)
        let progress = ReadWriteProgress()
        let writersFinished = Locked(0)

        // On threads, not tasks: see runOnParallelThreads for why.
        await runOnParallelThreads(writers + readers) { index in
            if index < writers {
                let writer = index
                defer {
                    let finished = writersFinished.withLock { count in
                        count += 1
                        return count
                    }
                    if finished == writers { progress.markWritersDone() }
                }
                for iteration in 0..<iterations {
                    let value = WrittenRecord(writer: writer, iteration: iteration).value
                    let done: Void? = recorder.attempt("Writer \(writer) writing iteration \(iteration)") {
                        if iteration.isMultiple(of: 2) {
                            try reference.set(value)
                        } else {
                            try storage.set(value, forKey: key)
                        }
                    }
                    guard done != nil else { return }
                    yieldThread()
                }
            } else {
                let reader = index - writers
                // At least one read, however quickly the writers finish.
                repeat {
                    let path = ["storedValue(forKey:)", "value(forKey:as:)", "a reference's value()"][reader % 3]
                    let read: [String: Int]?? = recorder.attempt("Reader \(reader) reading through \(path) during writes") {
                        switch reader % 3 {
                        case 0: try storage.storedValue(forKey: key, .granted).map { try [String: Int](storedValue: $0) }
                        case 1: try storage.value(forKey: key, as: [String: Int].self)
                        default: try reference.read()
                        }
                    }
                    guard let read else { return }
                    progress.countRead()
                    if let problem = WrittenRecord.problem(with: read, writers: writers, iterations: iterations) {
                        recorder.record("Reader \(reader) read \(String(conformanceDescribing: read)) through \(path) during writes, \(problem)")
                    }
                    yieldThread()
                } while !progress.writersAreDone
            }
        }

        recorder.expect(progress.readCount > 0, "No read completed, so nothing was checked.")
        let lastWrites = (0..<writers).map { WrittenRecord(writer: $0, iteration: iterations - 1).value }
        if let final = recorder.attempt("Reading the final value", { try storage.value(forKey: key, as: [String: Int].self) }) {
            recorder.expect(
                final.map(lastWrites.contains) == true,
                "After \(writers) writers finished, \"\(key)\" held \(String(conformanceDescribing: final)); expected the last value of one of the writers.")
        }
    }

    /// The task and iteration counts, checked; `nil` (recorded) when the options make no sense.
    private func concurrencyBounds(_ recorder: IssueRecorder) -> (tasks: Int, iterations: Int, total: Int)? {
        let tasks = options.concurrentTasks
        let iterations = options.iterationsPerTask
        guard tasks >= 1, iterations >= 1 else {
            recorder.record("Options.concurrentTasks (\(tasks)) and Options.iterationsPerTask (\(iterations)) must both be at least 1.")
            return nil
        }
        let (total, overflow) = tasks.multipliedReportingOverflow(by: iterations)
        guard !overflow, total <= Int(Int32.max) else {
            recorder.record("Options.concurrentTasks (\(tasks)) times Options.iterationsPerTask (\(iterations)) is too large to run.")
            return nil
        }
        return (tasks, iterations, total)
    }

    /// A stored value as a message quotes it, `nil` for absent.
    func describe(_ value: StoredValue?) -> String {
        value.map { String(conformanceShortening: $0.description) } ?? "nil (absent)"
    }
}
