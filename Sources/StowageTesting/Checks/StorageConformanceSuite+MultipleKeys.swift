import Stowage

extension StorageConformanceSuite {
    func checkMultiKeyCompareAndSwap(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let first = "multiKey.first", second = "multiKey.second"
        _ = recorder.attempt("Writing 1 to \"\(first)\"") { try storage.set(1, forKey: first) }

        let mismatched = "replaceStoredValues expecting \"\(first)\" = 1 and \"\(second)\" = 5 (it is absent)"
        if let replaced = recorder.attempt(
            mismatched, { try storage.replaceStoredValues(expecting: [first: 1, second: 5], with: [first: 10, second: 20], .granted) })
        {
            recorder.expect(!replaced, "\(mismatched) returned true; expected false.")
        }
        expectStored([first: 1, second: nil], in: storage, after: mismatched, recorder)

        let matched = "replaceStoredValues expecting \"\(first)\" = 1 and \"\(second)\" absent"
        if let replaced = recorder.attempt(
            matched, { try storage.replaceStoredValues(expecting: [first: 1, second: nil], with: [first: nil, second: 2], .granted) })
        {
            recorder.expect(replaced, "\(matched) returned false; expected true.")
        }
        expectStored([first: nil, second: 2], in: storage, after: matched, recorder)
    }

    func checkListing(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let kept = "listing.kept", removed = "listing.removed"
        _ = recorder.attempt("Writing two keys and removing one") {
            try storage.set("text", forKey: kept)
            try storage.set(2, forKey: removed)
            try storage.removeValue(forKey: removed)
        }
        let listed: [String: StoredValue]
        do {
            listed = try storage.storedEntries(.granted)
        } catch let error as StorageError where error.code == .unsupported {
            return
        } catch {
            recorder.expect(false, "storedEntries(_:) threw \(error); expected a listing or a StorageError with code .unsupported.")
            return
        }
        recorder.expect(listed[kept] == "text", "storedEntries(_:) gave \(describe(listed[kept])) for \"\(kept)\"; expected \"text\".")
        recorder.expect(listed[removed] == nil, "storedEntries(_:) listed \"\(removed)\", which was removed.")
    }

    private func expectStored(_ expected: [String: StoredValue?], in storage: Storage, after action: String, _ recorder: IssueRecorder) {
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            guard let current = recorder.attempt("storedValue(forKey: \"\(key)\") after \(action)", { try storage.storedValue(forKey: key, .granted) }) else {
                continue
            }
            recorder.expect(current == value, "After \(action), \"\(key)\" held \(describe(current)); expected \(describe(value)).")
        }
    }
}
