import Stowage

extension StorageConformanceSuite {
    func checkAbsentKeys(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "absent.neverWritten"
        expectAbsent(key, in: storage, after: "making a fresh store", recorder)
        if let read = recorder.attempt("Reading a key never written with value(forKey:as: Int.self)", { try storage.value(forKey: key, as: Int.self) }) {
            recorder.expect(
                read == nil, "value(forKey: \"\(key)\", as: Int.self) on a fresh store returned \(String(conformanceDescribing: read)); expected nil.")
        }

        let reference = storage.reference(forKey: key, as: String.self)
        if let read = recorder.attempt("Reading a key never written through a reference's value()", { try reference.read() }) {
            recorder.expect(read == nil, "A reference to \"\(key)\" on a fresh store read \(String(conformanceDescribing: read)); expected nil.")
        }
        recorder.expect(!reference.hasStoredValue, "A reference to \"\(key)\" on a fresh store said hasStoredValue is true; expected false.")
        recorder.expect(reference.value == nil, "A reference's content for \"\(key)\" on a fresh store was not nil.")
        recorder.expect(
            reference.lastError == nil, "Reading an absent key set lastError to \(String(conformanceDescribing: reference.lastError)); expected nil.")
        expectAbsent(key, in: storage, after: "reading the key through a reference", recorder)
    }

    func checkRemoval(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "removal.key"
        let reference = storage.reference(forKey: key, as: Int.self)

        _ = recorder.attempt("Writing 1 through set(_:forKey:)") { try storage.set(1, forKey: key) }
        _ = try? reference.read()
        _ = recorder.attempt("Removing the key with removeValue(forKey:)") { try storage.removeValue(forKey: key) }
        expectAbsent(key, in: storage, after: "removeValue(forKey:)", recorder)
        expectReference(reference, reads: nil, after: "removeValue(forKey:)", recorder)

        _ = recorder.attempt("Writing 2 through a reference") { try reference.set(2) }
        _ = recorder.attempt("Removing the key by setting nil through a reference") { try reference.set(nil) }
        expectAbsent(key, in: storage, after: "setting nil through a reference", recorder)
        expectReference(reference, reads: nil, after: "setting nil through a reference", recorder)

        _ = recorder.attempt("Writing 3 through a reference") { try reference.set(3) }
        _ = recorder.attempt("Setting the value to nil in modify") { try reference.modify { $0 = nil } }
        expectAbsent(key, in: storage, after: "setting the value to nil in modify", recorder)

        let absent = "removal.neverWritten"
        _ = recorder.attempt("removeValue(forKey:) of a key never written") { try storage.removeValue(forKey: absent) }
        _ = recorder.attempt("removeStoredValue(forKey:) of a key never written") { try storage.removeStoredValue(forKey: absent, .granted) }
        _ = recorder.attempt("removeValue(forKey:) of a key just removed") { try storage.removeValue(forKey: key) }
        _ = recorder.attempt("removeStoredValue(forKey:) of a key just removed") { try storage.removeStoredValue(forKey: key, .granted) }
        expectAbsent(absent, in: storage, after: "removing a key never written", recorder)
    }

    func checkKeyIndependence(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        // Neighbours a careless store could merge: case, prefixes, separators, padding.
        let keys = ["key", "Key", "KEY", "key.sub", "key/sub", "key_sub", "keysub", "ke", "key ", " key", "key.sub.deeper"]
        var expected: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            expected[key] = index * 10
            _ = recorder.attempt("Writing \(index * 10) under \"\(key)\" with set(_:forKey:)") { try storage.set(index * 10, forKey: key) }
        }
        expectValues(expected, in: storage, after: "writing each key once", recorder)

        _ = recorder.attempt("Overwriting \"key\" with 999") { try storage.set(999, forKey: "key") }
        expected["key"] = 999
        expectValues(expected, in: storage, after: "overwriting \"key\"", recorder)

        _ = recorder.attempt("Removing \"key.sub\"") { try storage.removeValue(forKey: "key.sub") }
        expected["key.sub"] = nil
        expectValues(expected, in: storage, after: "removing \"key.sub\"", recorder)
        expectAbsent("key.sub", in: storage, after: "removing \"key.sub\"", recorder)

        // A second instance must start empty and stay apart.
        let other = try freshStorage()
        guard other !== storage else {
            recorder.record("makeStorage returned the same instance twice; expected a fresh store on every call.")
            return
        }
        for key in keys {
            expectAbsent(key, in: other, after: "writing \"\(key)\" in the first of two store instances", recorder)
        }
        _ = recorder.attempt("Writing -1 under \"key\" in a second store instance") { try other.set(-1, forKey: "key") }
        expectValues(expected, in: storage, after: "writing \"key\" in a second store instance", recorder)
    }

    func checkUnusualKeys(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let longKey = String(String(repeating: "a-long-key.", count: 91).prefix(1_000))
        let keys = [
            "", " ", "with space", "  padded  ", ".", "..", "a.b.c", ".hidden", "trailing.", "/", "a/b/c", "/leading", "trailing/",
            "a\\b", "%2F", "a%20b", "tab\tand\nnewline", "ключ", "鍵", "🔑", "e\u{301}", "key=value;other", "quote\"s'", longKey,
            longKey.uppercased(), String(repeating: "ü", count: 1_000),
        ]
        guard Set(keys).count == keys.count else {
            recorder.record("The suite's own list of unusual keys holds two equal keys on this platform, so the check could not run.")
            return
        }
        for (index, key) in keys.enumerated() {
            _ = recorder.attempt("Writing under the key \(String(conformanceDescribing: key))") { try storage.set("value \(index)", forKey: key) }
        }
        for (index, key) in keys.enumerated() {
            let name = String(conformanceDescribing: key)
            if let read = recorder.attempt("Reading the key \(name) with value(forKey:as:)", { try storage.value(forKey: key, as: String.self) }) {
                recorder.expect(
                    read == "value \(index)",
                    "The key \(name) read \(String(conformanceDescribing: read)); expected \"value \(index)\", written under it alone.")
            }
            if let stored = recorder.attempt("Reading the key \(name) with storedValue(forKey:)", { try storage.storedValue(forKey: key, .granted) }) {
                recorder.expect(
                    stored == .string("value \(index)"),
                    "storedValue(forKey:) for the key \(name) returned \(String(conformanceDescribing: stored)); expected \"value \(index)\".")
            }
        }
    }

    /// Records every key of `expected` that does not read back its value, and every key read back that should be absent.
    func expectValues(_ expected: [String: Int], in storage: Storage, after action: String, _ recorder: IssueRecorder) {
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            if let read = recorder.attempt("After \(action), reading \"\(key)\"", { try storage.value(forKey: key, as: Int.self) }) {
                recorder.expect(read == value, "After \(action), \"\(key)\" read \(String(conformanceDescribing: read)); expected \(value).")
            }
        }
    }

    /// Records unless `reference` reads `expected`.
    func expectReference<Value: Storable & Equatable>(
        _ reference: StorageReference<Storage, Value>, reads expected: Value?, after action: String, _ recorder: IssueRecorder
    ) {
        let name = "a reference of type \(Value.self) to \"\(reference.key)\""
        if let read = recorder.attempt("After \(action), \(name)", { try reference.read() }) {
            recorder.expect(
                read == expected,
                "After \(action), \(name) read \(String(conformanceDescribing: read)); expected \(String(conformanceDescribing: expected)).")
        }
    }
}
