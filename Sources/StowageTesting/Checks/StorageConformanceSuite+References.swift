import Stowage

extension StorageConformanceSuite {
    func checkReferenceIdentity(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "identity.key"
        let first = storage.reference(forKey: key, as: Int.self)
        let second = storage.reference(forKey: key, as: Int.self)
        recorder.expect(
            first === second, "Two calls of reference(forKey: \"\(key)\", as: Int.self) on one store gave two objects; expected the identical reference.")
        recorder.expect(first.storage === storage, "A reference's storage is not the store it came from.")
        recorder.expect(first.key == key, "A reference made for \"\(key)\" has the key \"\(first.key)\".")

        let wrapper = Stored<Storage, Int>(wrappedValue: 0, key, in: storage)
        recorder.expect(
            wrapper.projectedValue.reference === first,
            "A Stored property for \"\(key)\" holds another reference than reference(forKey:as:) gives; expected the identical one.")

        let otherKey = storage.reference(forKey: "identity.otherKey", as: Int.self)
        recorder.expect(otherKey !== first, "References for two different keys are the same object.")

        let otherStorage = try freshStorage()
        let otherInstance = otherStorage.reference(forKey: key, as: Int.self)
        recorder.expect(
            otherInstance !== first,
            "References for \"\(key)\" in two different store instances are the same object; expected one per instance.")
        withExtendedLifetime((first, second, wrapper, otherKey, otherInstance)) {}
    }

    func checkReferenceCoherence(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "coherence.key"
        let int = storage.reference(forKey: key, as: Int.self)
        let int64 = storage.reference(forKey: key, as: Int64.self)
        // Fill both caches, so a stale cache would show.
        expectReference(int, reads: nil, after: "making a fresh store", recorder)
        expectReference(int64, reads: nil, after: "making a fresh store", recorder)

        _ = recorder.attempt("Writing 42 through a reference of type Int") { try int.set(42) }
        expectReference(int64, reads: 42, after: "writing 42 through a reference of type Int", recorder)
        expectStoreValues(key, in: storage, read: 42, after: "writing 42 through a reference of type Int", recorder)

        _ = recorder.attempt("Writing Int64(7) through set(_:forKey:)") { try storage.set(Int64(7), forKey: key) }
        expectReference(int, reads: 7, after: "writing Int64(7) through set(_:forKey:)", recorder)

        _ = recorder.attempt("Writing 8 through set(_:forKey:)") { try storage.set(8, forKey: key) }
        expectReference(int64, reads: 8, after: "writing 8 through set(_:forKey:)", recorder)

        _ = recorder.attempt("Setting 9 in modify on a reference of type Int64") { try int64.modify { $0 = 9 } }
        expectReference(int, reads: 9, after: "setting 9 in modify on a reference of type Int64", recorder)

        let viaValues: Int8? = 10
        storage.values[dynamicMember: key] = viaValues
        expectReference(int, reads: 10, after: "writing Int8(10) through store.values", recorder)
        expectReference(int64, reads: 10, after: "writing Int8(10) through store.values", recorder)

        _ = recorder.attempt("Removing the key with removeValue(forKey:)") { try storage.removeValue(forKey: key) }
        expectReference(int, reads: nil, after: "removeValue(forKey:)", recorder)
        expectReference(int64, reads: nil, after: "removeValue(forKey:)", recorder)
        expectStoreValues(key, in: storage, read: nil, after: "removeValue(forKey:)", recorder)
    }

    /// Records unless `store.values` and `value(forKey:as:)` read `expected`.
    private func expectStoreValues(_ key: String, in storage: Storage, read expected: Int64?, after action: String, _ recorder: IssueRecorder) {
        let viaValues: Int64? = storage.values[dynamicMember: key]
        recorder.expect(
            viaValues == expected,
            "After \(action), store.values read \(String(conformanceDescribing: viaValues)) for \"\(key)\"; expected \(String(conformanceDescribing: expected))."
        )
        if let read = recorder.attempt("After \(action), value(forKey:as: Int16.self)", { try storage.value(forKey: key, as: Int16.self) }) {
            recorder.expect(
                read.map(Int64.init) == expected,
                "After \(action), value(forKey: \"\(key)\", as: Int16.self) read \(String(conformanceDescribing: read)); "
                    + "expected \(String(conformanceDescribing: expected)).")
        }
    }
}
