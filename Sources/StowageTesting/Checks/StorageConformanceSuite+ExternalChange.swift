import Stowage

extension StorageConformanceSuite {
    func checkExternalChange(_ recorder: IssueRecorder) async throws {
        guard let externalChange = options.externalChange else { return }
        let storage = try freshStorage()
        let key = "external.key"
        let reference = storage.reference(forKey: key, as: Int.self)
        guard recorder.attempt("Writing 1 through a reference", { try reference.set(1) }) != nil else { return }
        expectReference(reference, reads: 1, after: "writing 1 through the reference", recorder)

        var current: Int? = 1
        for (value, name) in [(2, "2"), (nil, "nil, removing it")] as [(Int?, String)] {
            await expectExternalChange(
                of: reference, from: current, to: value, named: name, by: externalChange, recorder)
            // A failure leaves the reference's cache stale; going on would only repeat it.
            guard recorder.isClean else { return }
            current = value
        }
    }

    /// Changes the key behind Stowage's back and checks that every kind of
    /// observer hears of it and that the reference then reads the new value.
    private func expectExternalChange(
        of reference: StorageReference<Storage, Int>,
        from current: Int?,
        to value: Int?,
        named name: String,
        by externalChange: @Sendable (Storage, String, StoredValue?) throws -> Void,
        _ recorder: IssueRecorder
    ) async {
        let storage = reference.storage
        let key = reference.key
        let changes = reference.changes
        await expect(changes, yields: [current], "Before the change behind Stowage's back, a changes stream", recorder)
        let (observed, continuation) = AsyncStream.makeStream(of: Int?.self)
        let token = reference.observe { continuation.yield($0) }
        defer {
            token.cancel()
            continuation.finish()
        }
        let storeChanges = storage.changes
        let hint =
            " The store must announce a change made behind Stowage's back with announceChange(forKey:), "
            + "announceChanges(forKeys:) or announceChangeOfAllKeys()."

        let action = "Options.externalChange set \"\(key)\" to \(name)"
        guard recorder.attempt(action, { try externalChange(storage, key, value.map { .signedInteger(Int64($0)) }) }) != nil else { return }
        await expect(changes, yields: [value], "After \(action), the reference's changes stream", hint: hint, recorder)
        await expect(observed, yields: [value], "After \(action), an observe handler", hint: hint, recorder)
        await expect(storeChanges, reports: key, times: 1, "After \(action), the store's changes stream", hint: hint, recorder)
        // Read only after the notification: a store may announce from another thread, a little later.
        expectReference(reference, reads: value, after: "\(action), once observers had been waited for", recorder)
        if let read = recorder.attempt("After \(action), value(forKey:as: Int.self)", { try storage.value(forKey: key, as: Int.self) }) {
            recorder.expect(
                read == value,
                "After \(action), value(forKey: \"\(key)\", as: Int.self) read \(String(conformanceDescribing: read)); "
                    + "expected \(String(conformanceDescribing: value)).")
        }
    }
}
