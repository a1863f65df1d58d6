#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Stowage
import Synchronization

/// Another program editing the same file: it knows nothing of Stowage's
/// code, reads and writes the JSON with Foundation, and cooperates the way a
/// well-behaved tool must for no write to be lost. It takes the store's
/// cross-process `flock` on `<file>.lock`, rereads the file, changes it, and
/// saves it as editors do (a new file renamed over the old one), all under
/// the lock.
///
/// Under the lock its edits are as atomic as a store's `modify`, so it may
/// add to the shared counters too, and the final counts stay exact; that also
/// proves the stores reread a file a stranger replaced before they write. Its
/// own keys (`external.*`) no store writes, so before each edit it checks
/// that they still hold what it last wrote: a store that wrote back a stale
/// copy of the file would break that.
enum ExternalEditor {
    static func run(_ options: SoakOptions) -> Int32 {
        let name = options.required("name")
        let file = options.required("file")
        let deadline = ContinuousClock.now + .seconds(options.number("until", default: 0) - Date().timeIntervalSince1970)
        let warmUpEnd = ContinuousClock.now + .seconds(options.number("warm-up", default: 5))
        let started = ContinuousClock.now
        let problems = ErrorLog()
        let memoryAtStart = MemorySample.current()
        let progress = ThreadProgress()
        let reporter = ProgressReporter(progress: [progress], warmUpEnd: warmUpEnd)

        var editor = EditorState(file: file, problems: problems)
        var generator = SystemRandomNumberGenerator()
        while ContinuousClock.now < deadline {
            usleep(UInt32.random(in: 5_000...40_000, using: &generator))
            if Int.random(in: 0..<10, using: &generator) == 0 {
                editor.touch()
            } else {
                editor.edit(using: &generator)
            }
            progress.operations.add(1, ordering: .relaxed)
        }
        reporter.stop()
        let memoryAtEnd = MemorySample.current()
        ChildChannel.send(ChildChannel.finishedWriting)

        let report = EditorReport(
            name: name,
            edits: editor.edits,
            touches: editor.touches,
            counterIncrements: editor.counterIncrements,
            generation: editor.generation,
            note: editor.note,
            temporaries: editor.temporaries,
            memoryAtStart: memoryAtStart,
            memoryAfterWarmUp: reporter.memoryAfterWarmUp ?? memoryAtEnd,
            memoryAtEnd: memoryAtEnd,
            seconds: Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000,
            errorCount: problems.count,
            errors: problems.messages
        )
        return ReportFile.write(report, name: name, besides: file) && problems.count == 0 ? 0 : 1
    }
}

/// What the editor has written, and how it writes.
struct EditorState {
    let file: String
    let problems: ErrorLog
    private(set) var edits = 0
    private(set) var touches = 0
    private(set) var counterIncrements = Array(repeating: 0, count: SoakKeys.counterCount)
    private(set) var generation = 0
    private(set) var note = ""
    private(set) var temporaries: [String: Int] = [:]
    private var lockDescriptor: Int32 = -1

    /// Strings that need every kind of escaping, in a hand-written file's style.
    private static let notes = [
        "plain", "naïve café", "quote \" backslash \\ slash /", "tab\tnew\nline", "emoji 🚀👩‍💻", "日本語のテキスト",
        "line separator \u{2028} paragraph \u{2029}", "control \u{01}\u{1F}", "",
    ]

    init(file: String, problems: ErrorLog) {
        self.file = file
        self.problems = problems
    }

    /// Sets the modification time only: the stores notice a change, reread,
    /// and must find no value changed.
    mutating func touch() {
        guard utimensat(AT_FDCWD, file, nil, 0) == 0 || errno == ENOENT else {
            problems.record("touch failed: errno \(errno)")
            return
        }
        touches += 1
    }

    /// One edit under the store's lock.
    mutating func edit(using generator: inout some RandomNumberGenerator) {
        guard lock() else { return }
        defer { flock(lockDescriptor, LOCK_UN) }
        var object: [String: Any]
        if let bytes = RawFile.read(file) {
            do {
                object = try RawFile.foundationObject(bytes)
            } catch {
                problems.record("invariant: the editor found a file that does not parse: \(error)")
                return
            }
        } else {
            object = [:]
        }
        // No store writes these keys: if one wrote back a stale copy, they would differ here.
        let storedGeneration = RawFile.integer(object[SoakKeys.externalGeneration]) ?? 0
        let storedCounter = RawFile.integer(object[SoakKeys.externalCounter]) ?? 0
        if storedGeneration != generation || storedCounter != edits {
            problems.record(
                "invariant: the editor's keys changed behind its back: generation \(storedGeneration) (wrote \(generation)), counter \(storedCounter) (wrote \(edits))"
            )
        }
        generation += 1
        let counter = Int.random(in: 0..<SoakKeys.counterCount, using: &generator)
        object[SoakKeys.counter(counter)] = (RawFile.integer(object[SoakKeys.counter(counter)]) ?? 0) + 1
        object[SoakKeys.externalGeneration] = generation
        object[SoakKeys.externalCounter] = edits + 1
        let newNote = Self.notes.randomElement(using: &generator)! + " #\(generation)"
        object[SoakKeys.externalNote] = newNote
        let temporary = SoakKeys.externalTemporary(Int.random(in: 0..<SoakKeys.editorTemporaryCount, using: &generator))
        let removesTemporary = Bool.random(using: &generator)
        object[temporary] = removesTemporary ? nil : generation

        var writing: JSONSerialization.WritingOptions = [.sortedKeys]
        if Bool.random(using: &generator) { writing.insert(.prettyPrinted) }
        if Bool.random(using: &generator) { writing.insert(.withoutEscapingSlashes) }
        do {
            try save(JSONSerialization.data(withJSONObject: object, options: writing))
        } catch let error as POSIXError where error.code == .ESTALE {
            // The lock file was deleted while this edit held it: the edit is dropped, as a store's write starts over.
            generation -= 1
            return
        } catch {
            problems.record("the editor could not save: \(error)")
            return
        }
        edits += 1
        counterIncrements[counter] += 1
        note = newNote
        temporaries[temporary] = removesTemporary ? nil : generation
    }

    private mutating func lock() -> Bool {
        if lockDescriptor < 0 {
            lockDescriptor = open(file + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard lockDescriptor >= 0 else {
                problems.record("the editor could not open the lock file: errno \(errno)")
                return false
            }
        }
        while flock(lockDescriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                problems.record("the editor could not lock: errno \(errno)")
                return false
            }
        }
        // The lock file may have been deleted (the coordinator does): a lock on a deleted file excludes
        // nobody, so check, as the store does, under the folder's flock, and lock the new one.
        if (try? holdsCurrentLock()) != true {
            flock(lockDescriptor, LOCK_UN)
            close(lockDescriptor)
            lockDescriptor = -1
            return lock()
        }
        return true
    }

    /// Whether the locked descriptor is the file `<file>.lock` names now, checked under the folder's
    /// `flock` as the JSON file store checks it; `body` runs under that `flock` too.
    private func holdsCurrentLock(_ body: () throws -> Void = {}) rethrows -> Bool {
        let folder = open(URL(filePath: file).deletingLastPathComponent().path(percentEncoded: false), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return false }
        defer { close(folder) }
        while flock(folder, LOCK_EX) != 0 { guard errno == EINTR else { return false } }
        defer { flock(folder, LOCK_UN) }
        var held = stat(), named = stat()
        guard fstat(lockDescriptor, &held) == 0, lstat(file + ".lock", &named) == 0,
            held.st_dev == named.st_dev, held.st_ino == named.st_ino
        else { return false }
        try body()
        return true
    }

    /// Writes a new file beside the target, syncs it, and renames it over the target.
    private func save(_ data: Data) throws {
        let temporary = URL(filePath: file).deletingLastPathComponent().appending(path: ".editor-\(getpid()).tmp").path(percentEncoded: false)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var written = 0
        try data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                guard count > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                written += count
            }
        }
        guard fsync(descriptor) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        // The rename happens only while this editor still holds the lock on the current lock file.
        let renamed = try holdsCurrentLock {
            guard rename(temporary, file) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
        if !renamed {
            unlink(temporary)
            throw POSIXError(.ESTALE)
        }
    }
}
