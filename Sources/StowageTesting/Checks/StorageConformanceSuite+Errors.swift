import Stowage

extension StorageConformanceSuite {
    func checkTypeMismatchError(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "errors.typeMismatch"
        guard recorder.attempt("Writing a string with set(_:forKey:)", { try storage.set("not a number", forKey: key) }) != nil else { return }
        expectError(
            key: key, type: "Int", code: .typeMismatch, reading: "a string with value(forKey:as: Int.self)", recorder
        ) { try storage.value(forKey: key, as: Int.self) }
        expectError(
            key: key, type: "Int", code: .typeMismatch, reading: "a string through a reference's value()", recorder
        ) { try storage.reference(forKey: key, as: Int.self).read() }
        if let stored = recorder.attempt("Reading the string back after the failed reads", { try storage.value(forKey: key, as: String.self) }) {
            recorder.expect(
                stored == "not a number",
                "After failed reads as Int, the key held \(String(conformanceDescribing: stored)); expected the string written, untouched.")
        }

        let rangeKey = "errors.outOfRange"
        guard recorder.attempt("Writing 300 with set(_:forKey:)", { try storage.set(300, forKey: rangeKey) }) != nil else { return }
        expectError(
            key: rangeKey, type: "Int8", code: .valueOutOfRange, reading: "300 with value(forKey:as: Int8.self)", recorder
        ) { try storage.value(forKey: rangeKey, as: Int8.self) }
    }

    func checkWrapperFallback(_ recorder: IssueRecorder) throws {
        let storage = try freshStorage()
        let key = "errors.wrapper"
        guard recorder.attempt("Writing a string with set(_:forKey:)", { try storage.set("not a number", forKey: key) }) != nil else { return }
        let wrapper = Stored<Storage, Int>(wrappedValue: 42, key, in: storage)
        recorder.expect(
            wrapper.wrappedValue == 42,
            "A Stored<\(Storage.self), Int> property with default 42 over a stored string read \(wrapper.wrappedValue); expected its default, 42.")
        if let error = wrapper.projectedValue.reference.lastError {
            recorder.expect(
                error.key == key && error.message.contains(key) && error.message.contains("Int"),
                "After a Stored property failed to read a string as Int, lastError was \"\(error.message)\"; "
                    + "expected a message naming the key \"\(key)\" and the type Int.")
        } else {
            recorder.record("After a Stored property failed to read a string as Int, lastError was nil; expected the StorageError.")
        }
        if let stored = recorder.attempt("Reading the string back after the wrapper's read", { try storage.value(forKey: key, as: String.self) }) {
            recorder.expect(
                stored == "not a number",
                "After a Stored property fell back to its default, the key held \(String(conformanceDescribing: stored)); "
                    + "expected the string written, untouched.")
        }

        wrapper.wrappedValue = 7
        recorder.expect(wrapper.wrappedValue == 7, "A Stored property set to 7 read \(wrapper.wrappedValue); expected 7.")
        recorder.expect(
            wrapper.projectedValue.reference.lastError == nil,
            "After a successful write, lastError was still \(String(conformanceDescribing: wrapper.projectedValue.reference.lastError)); expected nil.")
    }

    /// Records unless `read` throws a `StorageError` with `code` whose message names `key` and `type`.
    private func expectError<Value>(
        key: String, type: String, code: StorageError.Code, reading action: String, _ recorder: IssueRecorder, _ read: () throws -> Value
    ) {
        do {
            let value = try read()
            recorder.record("Reading \(action) returned \(String(conformanceDescribing: value)); expected a StorageError.")
        } catch let error as StorageError {
            recorder.expect(
                error.key == key, "Reading \(action) threw a StorageError with key \(String(conformanceDescribing: error.key)); expected \"\(key)\".")
            recorder.expect(error.code == code, "Reading \(action) threw a StorageError with code \(error.code); expected \(code).")
            recorder.expect(
                error.message.contains("\"\(key)\"") && error.message.contains(type),
                "Reading \(action) threw a StorageError whose message, \"\(error.message)\", does not name both the key \"\(key)\" and the type \(type).")
        } catch {
            recorder.record("Reading \(action) threw \(error), of type \(Swift.type(of: error)); expected a StorageError.")
        }
    }
}
