import Stowage

extension StorageConformanceSuite {
    func checkChangeStream(_ recorder: IssueRecorder) async throws {
        let storage = try freshStorage()
        let key = "observation.changes"
        let reference = storage.reference(forKey: key, as: Int.self)
        let fromAbsent = reference.changes
        _ = recorder.attempt("Writing 1 through a reference") { try reference.set(1) }
        let fromPresent = reference.changes
        _ = recorder.attempt("Writing 2 through a reference") { try reference.set(2) }
        _ = recorder.attempt("Writing 3 through a reference") { try reference.set(3) }
        _ = recorder.attempt("Writing Int64(4) through set(_:forKey:)") { try storage.set(Int64(4), forKey: key) }
        _ = recorder.attempt("Removing the key with removeValue(forKey:)") { try storage.removeValue(forKey: key) }

        await expect(
            fromAbsent, yields: [nil, 1, 2, 3, 4, nil],
            "A changes stream made while the key was absent, then written 1, 2, 3, Int64(4) and removed,", recorder)
        await expect(
            fromPresent, yields: [1, 2, 3, 4, nil],
            "A changes stream made while the key held 1, then written 2, 3, Int64(4) and removed,", recorder)
    }

    func checkObservers(_ recorder: IssueRecorder) async throws {
        let storage = try freshStorage()
        let key = "observation.observe"
        let reference = storage.reference(forKey: key, as: Int.self)
        let wide = storage.reference(forKey: key, as: Int64.self)
        let (observed, continuation) = AsyncStream.makeStream(of: Int?.self)
        let token = reference.observe { continuation.yield($0) }

        _ = recorder.attempt("Writing 1 through the observed reference") { try reference.set(1) }
        _ = recorder.attempt("Writing 1 again through the observed reference") { try reference.set(1) }
        _ = recorder.attempt("Writing 2 through the observed reference") { try reference.set(2) }
        _ = recorder.attempt("Writing Int64(2) through a reference of another type") { try wide.set(2) }
        _ = recorder.attempt("Writing 2 through set(_:forKey:)") { try storage.set(2, forKey: key) }
        _ = recorder.attempt("Removing the key by setting nil through a reference") { try wide.set(nil) }
        let described = "An observe handler, registered while the key was absent, then written 1, 1, 2, Int64(2), 2 and removed,"
        await expect(observed, yields: [1, 2, nil], described, recorder)

        token.cancel()
        _ = recorder.attempt("Writing 5 after cancelling the observation") { try reference.set(5) }
        continuation.finish()
        let late = await observed.collect(within: options.changeTimeout) { _ in false }
        recorder.expect(
            late.elements.isEmpty,
            "\(described) then received \(describe(late.elements)); expected nothing more: equal values are no change, "
                + "and a cancelled token stops the handler.")
    }

    func checkStoreChangeStream(_ recorder: IssueRecorder) async throws {
        let storage = try freshStorage()
        let key = "observation.store"
        let otherKey = "observation.store.other"
        let changes = storage.changes
        _ = recorder.attempt("Writing 1 through a reference") { try storage.reference(forKey: key, as: Int.self).set(1) }
        _ = recorder.attempt("Writing Int64(2) through set(_:forKey:)") { try storage.set(Int64(2), forKey: key) }
        _ = recorder.attempt("Removing the key with removeValue(forKey:)") { try storage.removeValue(forKey: key) }
        _ = recorder.attempt("Writing another key") { try storage.set("x", forKey: otherKey) }
        _ = recorder.attempt("Removing another key") { try storage.removeValue(forKey: otherKey) }

        let collected = await changes.collect(within: options.changeTimeout) { changes in
            changes.count(where: { $0.affects(key) }) >= 3 && changes.count(where: { $0.affects(otherKey) }) >= 2
        }
        recorder.expect(
            collected.end == .complete,
            "After writing \"\(key)\" twice and removing it, then writing and removing \"\(otherKey)\", changes yielded "
                + "\(describe(collected.elements)) \(ending(collected)); expected three changes of \"\(key)\" and two of \"\(otherKey)\".")
    }

    func checkIndependentStreams(_ recorder: IssueRecorder) async throws {
        let storage = try freshStorage()
        let key = "observation.independent"
        let reference = storage.reference(forKey: key, as: Int.self)
        let first = reference.changes
        let second = reference.changes
        let firstKeys = storage.changes
        let secondKeys = storage.changes
        _ = recorder.attempt("Writing 1 through a reference") { try reference.set(1) }
        _ = recorder.attempt("Writing 2 through a reference") { try reference.set(2) }

        await expect(first, yields: [nil, 1, 2], "The first of two changes streams on one key, written 1 and 2,", recorder)
        await expect(second, yields: [nil, 1, 2], "The second of two changes streams on one key, written 1 and 2,", recorder)
        await expect(firstKeys, reports: key, times: 2, "The first of two changes streams, after two writes,", recorder)
        await expect(secondKeys, reports: key, times: 2, "The second of two changes streams, after two writes,", recorder)

        // Cancelling the tasks that iterate the first streams ends those streams.
        let consumers = [Task { for await _ in first {} }, Task { for await _ in firstKeys {} }]
        for consumer in consumers {
            consumer.cancel()
            await consumer.value
        }
        _ = recorder.attempt("Writing 3 through a reference") { try reference.set(3) }
        _ = recorder.attempt("Writing 4 through a reference") { try reference.set(4) }
        await expect(second, yields: [3, 4], "After the first changes stream was cancelled, the second, written 3 and 4,", recorder)
        await expect(secondKeys, reports: key, times: 2, "After the first changes stream was cancelled, the second, after two writes,", recorder)
    }

    /// Records unless `stream` yields exactly `expected` next, within the change timeout.
    /// - Parameter described: the stream and what was done to it, ending in a comma.
    func expect(_ stream: AsyncStream<Int?>, yields expected: [Int?], _ described: String, hint: String = "", _ recorder: IssueRecorder) async {
        let collected = await stream.collect(expected.count, within: options.changeTimeout)
        recorder.expect(
            collected.end == .complete && collected.elements == expected,
            "\(described) yielded \(describe(collected.elements)) \(ending(collected)); expected \(describe(expected)).\(hint)")
    }

    /// Records unless `stream` reports `times` changes that may concern `key`, within the change timeout.
    func expect(_ stream: AsyncStream<StoreChange>, reports key: String, times: Int, _ described: String, hint: String = "", _ recorder: IssueRecorder) async {
        let collected = await stream.collect(within: options.changeTimeout) { $0.count(where: { $0.affects(key) }) >= times }
        recorder.expect(
            collected.end == .complete,
            "\(described) yielded \(describe(collected.elements)) \(ending(collected)); "
                + "expected \(times == 1 ? "a change" : "\(times) changes") of \"\(key)\" (or of all keys).\(hint)")
    }

    /// How a collection ended, as the end of a sentence.
    func ending<Element>(_ collected: AsyncStream<Element>.Collected) -> String {
        switch collected.end {
        case .complete: "in time"
        case .ended: "and then ended"
        case .timedOut: "within \(options.changeTimeout)"
        }
    }

    /// Values as a list, `nil` for absent: "[nil, 1, 2]".
    func describe(_ values: [Int?]) -> String {
        "[" + values.map { $0.map(String.init) ?? "nil" }.joined(separator: ", ") + "]"
    }

    /// Changes as a list: "[key(\"a\"), allKeys]".
    func describe(_ changes: [StoreChange]) -> String {
        "["
            + changes.map { change in
                switch change {
                case .key(let key): "key(\(String(conformanceDescribing: key)))"
                case .allKeys: "allKeys"
                }
            }.joined(separator: ", ") + "]"
    }
}
