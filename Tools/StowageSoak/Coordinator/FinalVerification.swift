import Foundation
import Stowage
import StowageJSON

/// The invariants checked once every process has ended, against the final
/// file and the reports of what each process did.
struct FinalVerification {
    let file: String
    let workers: [WorkerReport]
    let editor: EditorReport?
    /// Every worker reported, so the sums are complete.
    let everyoneReported: Bool
    let rssGrowthLimitKiB: Int
    let heapGrowthLimitKiB: Int
    private(set) var failures: [String] = []
    private(set) var notes: [String] = []

    init(file: String, workers: [WorkerReport], editor: EditorReport?, everyoneReported: Bool, rssGrowthLimitKiB: Int, heapGrowthLimitKiB: Int) {
        self.file = file
        self.workers = workers
        self.editor = editor
        self.everyoneReported = everyoneReported
        self.rssGrowthLimitKiB = rssGrowthLimitKiB
        self.heapGrowthLimitKiB = heapGrowthLimitKiB
    }

    mutating func run() {
        guard let bytes = RawFile.read(file) else { return fail("the final file is missing") }
        do {
            _ = try RawFile.foundationObject(bytes)
        } catch {
            fail("Foundation can not parse the final file: \(error)")
        }
        guard case .dictionary(let members)? = try? JSONParser().parse(bytes) else { return fail("Stowage's parser can not read the final file as an object") }
        notes.append("final file: \(bytes.count) bytes, \(members.count) top-level members")
        checkLeftovers()
        for report in workers where report.errorCount > 0 {
            fail("\(report.name) met \(report.errorCount) problems, first: \(report.errors.prefix(5).joined(separator: " | "))")
        }
        if let editor, editor.errorCount > 0 {
            fail("\(editor.name) met \(editor.errorCount) problems, first: \(editor.errors.prefix(5).joined(separator: " | "))")
        }
        guard everyoneReported, let editor else { return fail("not every process reported, so the counts can not be checked") }
        checkCounters(members, editor: editor)
        checkAccounts(members)
        checkOwnKeys(members)
        checkSharedKeys(members)
        checkEditorKeys(members, editor: editor)
        checkObservation(editor: editor)
        checkMemory()
    }

    private mutating func fail(_ message: String) {
        failures.append(message)
    }

    private func integer(_ value: StoredValue?) -> Int? {
        value.flatMap { try? Int(storedValue: $0) }
    }

    /// Every writer ended normally, so none may have left a temporary file,
    /// and no version was ever so broken that a store moved it aside.
    private mutating func checkLeftovers() {
        let directory = URL(filePath: file).deletingLastPathComponent().path(percentEncoded: false)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.contains(".tmp") || name.contains(".corrupt-") || name.contains(".offending-") {
            fail("\(name) is left in the directory")
        }
    }

    private mutating func checkCounters(_ members: [String: StoredValue], editor: EditorReport) {
        for counter in 0..<SoakKeys.counterCount {
            let expected = workers.reduce(editor.counterIncrements[counter]) { $0 + $1.counterIncrements[counter] }
            let actual = integer(members[SoakKeys.counter(counter)]) ?? 0
            if actual != expected { fail("\(SoakKeys.counter(counter)) is \(actual), but the processes added \(expected)") }
        }
    }

    private mutating func checkAccounts(_ members: [String: StoredValue]) {
        var balance = 0
        for account in 0..<SoakKeys.accountCount {
            let expected = workers.reduce(0) { $0 + $1.accountDeltas[account] }
            let actual = integer(members[SoakKeys.account(account)]) ?? 0
            balance += actual
            if actual != expected { fail("\(SoakKeys.account(account)) is \(actual), but the committed transactions add up to \(expected)") }
        }
        if balance != 0 { fail("the accounts sum to \(balance), not 0") }
        let transfers = workers.reduce(0) { $0 + $1.transfers }
        let actual = integer(members[SoakKeys.transfers]) ?? 0
        if actual != transfers { fail("\(SoakKeys.transfers) is \(actual), but \(transfers) transactions committed") }
    }

    /// No key written and not removed may be missing, and each holds its
    /// thread's last write; a removed one must be gone.
    private mutating func checkOwnKeys(_ members: [String: StoredValue]) {
        var wrong = 0
        for report in workers {
            for (key, json) in report.ownKeysPresent {
                let expected = try? JSONParser().parse(Array(json.utf8))
                let actual = value(at: SoakKeys.path(of: key), in: members)
                if actual == nil || actual != expected {
                    wrong += 1
                    if wrong <= 10 { fail("own key \(key) is \(actual.map { "\($0)" } ?? "missing"), not its last write \(json)") }
                }
            }
            for key in report.ownKeysRemoved where value(at: SoakKeys.path(of: key), in: members) != nil {
                wrong += 1
                if wrong <= 10 { fail("own key \(key) was removed last, but is in the file") }
            }
        }
        if wrong > 10 { fail("\(wrong - 10) more own keys are wrong") }
    }

    private func value(at path: [String], in members: [String: StoredValue]) -> StoredValue? {
        guard let first = path.first, let value = members[first] else { return nil }
        if path.count == 1 { return value }
        guard case .dictionary(let nested) = value else { return nil }
        return self.value(at: Array(path.dropFirst()), in: nested)
    }

    /// Keys everyone set and nobody removes: present, holding one of the writes.
    private mutating func checkSharedKeys(_ members: [String: StoredValue]) {
        let written = workers.reduce(into: Set<Int>()) { $0.formUnion($1.sharedKeysWritten) }
        for index in written.sorted() {
            guard case .string(let text)? = members[SoakKeys.shared(index)],
                text.wholeMatch(of: /p\d+t\d+#\d+/) != nil
            else {
                fail("\(SoakKeys.shared(index)) is \(members[SoakKeys.shared(index)].map { "\($0)" } ?? "missing"), not one of the values written")
                continue
            }
        }
    }

    /// The editor's keys hold exactly its last edit: no store wrote them back stale.
    private mutating func checkEditorKeys(_ members: [String: StoredValue], editor: EditorReport) {
        if integer(members[SoakKeys.externalGeneration]) ?? 0 != editor.generation {
            fail(
                "\(SoakKeys.externalGeneration) is \(String(describing: members[SoakKeys.externalGeneration])), but the editor last wrote \(editor.generation)")
        }
        if integer(members[SoakKeys.externalCounter]) ?? 0 != editor.edits {
            fail("\(SoakKeys.externalCounter) is \(String(describing: members[SoakKeys.externalCounter])), but the editor made \(editor.edits) edits")
        }
        if editor.edits > 0, members[SoakKeys.externalNote] != .string(editor.note) {
            fail("\(SoakKeys.externalNote) is not the editor's last note")
        }
        for index in 0..<SoakKeys.editorTemporaryCount {
            let key = SoakKeys.externalTemporary(index)
            if integer(members[key]) != editor.temporaries[key] {
                fail("\(key) is \(String(describing: members[key])), but the editor left \(String(describing: editor.temporaries[key]))")
            }
        }
    }

    /// Change detection brought the editor's edits to every process's
    /// observers and streams while the run went on.
    private mutating func checkObservation(editor: EditorReport) {
        guard editor.edits >= 10 else { return }
        for report in workers where report.observedExternalChanges == 0 || report.streamedExternalChanges == 0 {
            fail(
                "\(report.name) was never told of the editor's \(editor.edits) edits (observer \(report.observedExternalChanges), stream \(report.streamedExternalChanges))"
            )
        }
    }

    /// Memory after the warm-up may not grow by more than the limits: the
    /// processes keep a fixed set of keys and one file's worth of values, so
    /// growth that keeps pace with the operations is a leak. Resident memory
    /// also moves with the allocator's caching; the heap in use does not, so
    /// its limit is tighter.
    private mutating func checkMemory() {
        let samples =
            workers.map { ($0.name, $0.memoryAfterWarmUp, $0.memoryAtEnd) } + [editor].compactMap { $0 }.map { ($0.name, $0.memoryAfterWarmUp, $0.memoryAtEnd) }
        // A limit of zero turns its check off: under a sanitizer, its quarantine and shadow memory dominate.
        for (name, warm, end) in samples {
            let resident = end.residentKiB - warm.residentKiB
            if rssGrowthLimitKiB > 0 && resident > rssGrowthLimitKiB {
                fail(
                    "\(name)'s resident memory grew by \(MemorySample.mebibytes(resident)) after the warm-up (limit \(MemorySample.mebibytes(rssGrowthLimitKiB)))"
                )
            }
            if heapGrowthLimitKiB > 0, let before = warm.heapInUseKiB, let after = end.heapInUseKiB, after - before > heapGrowthLimitKiB {
                fail(
                    "\(name)'s heap in use grew by \(MemorySample.mebibytes(after - before)) after the warm-up (limit \(MemorySample.mebibytes(heapGrowthLimitKiB)))"
                )
            }
        }
    }
}
