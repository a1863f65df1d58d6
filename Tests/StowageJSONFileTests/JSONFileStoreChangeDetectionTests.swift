import Foundation
import StowageJSONFile
import StowageLocking
import Testing
import StowageTestSupport

/// Changes made to the file by other programs and by hand.
struct JSONFileStoreChangeDetectionTests {
    let directory = TemporaryDirectory()

    enum Edit: String, CaseIterable {
        /// Write a new file and rename it over, as editors save.
        case byRename
        /// Rewrite the file in place.
        case inPlace
        /// Delete the file, then create it again.
        case deleteAndRecreate
    }

    private func perform(_ edit: Edit, _ text: String) {
        switch edit {
        case .byRename:
            writeFile(directory.file("edited.tmp"), text)
            rename(directory.file("edited.tmp"), directory.file())
        case .inPlace:
            let descriptor = open(directory.file(), O_WRONLY | O_TRUNC)
            _ = text.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
        case .deleteAndRecreate:
            unlink(directory.file())
            writeFile(directory.file(), text)
        }
    }

    /// Every edit is seen, in order, each before the next is made. How soon
    /// is measured in `Benchmarks/` (group 12), not asserted here.
    @Test(arguments: Edit.allCases)
    func everyExternalEditIsObserved(edit: Edit) async throws {
        writeFile(directory.file(), #"{"edit": 0, "other": "unchanged"}"#)
        let store = JSONFileStore(url: directory.url())
        let edits = store.reference(forKey: "edit", as: Int.self)
        let other = store.reference(forKey: "other", as: String.self)
        let latest = Arrivals<Int?>()
        let editCalls = Counter()
        let token = edits.observe { value in
            // Counted before it is passed on: the loop below ends when the last value arrives, and then reads the count.
            editCalls.increment()
            latest.receive(value)
        }
        let otherCalls = Counter()
        let otherValues = Arrivals<String?>()
        let otherToken = other.observe { value in
            otherCalls.increment()
            otherValues.receive(value)
        }
        defer {
            token.cancel()
            otherToken.cancel()
        }
        var observed = 0
        for number in 1...100 {
            perform(edit, "{\"edit\": \(number), \"other\": \"unchanged\"}")
            let seen = await latest.wait(for: number)
            #expect(seen, "edit \(number) \(edit) was not observed within 30 s (last seen \(String(describing: latest.latest)))")
            if !seen { break }
            observed += 1
        }
        #expect(observed == 100)
        // A delete-and-recreate may be seen as a removal and then a value; nothing else fires twice.
        #expect(editCalls.value >= 100 && editCalls.value <= (edit == .deleteAndRecreate ? 200 : 100), "\(editCalls.value) calls")
        if edit == .deleteAndRecreate {
            // The edit's observer runs just before the other key's, for the same announcement: let that one finish.
            if otherCalls.value > 0 { #expect(await otherValues.wait(for: "unchanged")) }
            // Deleting the file really removes the key for a moment; each removal is followed by its return.
            #expect(otherCalls.value % 2 == 0 && otherCalls.value <= 200, "\(otherCalls.value) calls")
        } else {
            #expect(otherCalls.value == 0, "an unchanged key's observer must never fire")
        }
    }

    @Test func anotherStoresWritesAnnounceOnlyTheKeysTheyChanged() async throws {
        let store = JSONFileStore(url: directory.url())
        try store.set(1, forKey: "mine")
        try store.set(1, forKey: "theirs")
        try store.flush()
        let mineCalls = Counter()
        let token = store.reference(forKey: "mine", as: Int.self).observe { _ in mineCalls.increment() }
        defer { token.cancel() }
        let theirs = store.reference(forKey: "theirs", as: Int.self)
        let theirValues = Arrivals<Int?>()
        let theirToken = theirs.observe { theirValues.receive($0) }
        defer { theirToken.cancel() }
        let other = JSONFileStore(url: directory.url(), options: .init(prettyPrinted: false, changeDetection: .none))
        try other.set(2, forKey: "theirs")
        try other.flush()
        #expect(await theirValues.wait(for: 2))
        #expect(try theirs.read() == 2)
        #expect(mineCalls.value == 0)
    }
}

/// A thread-safe count of calls.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
