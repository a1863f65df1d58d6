import Foundation
import Stowage
import StowageHistory
import Testing

/// The author a history records: named per task, reaching writes made in
/// child tasks, gone outside; and a record's `madeBy` falling back to where
/// the change came from when no author was named.
struct ChangeAuthorTests {
    @Test func theAuthorIsTheTasksAndItsChildTasks() async {
        #expect(ChangeAuthor.name == nil)
        let seen = await ChangeAuthor.$name.withValue("alice@example.com") { () async -> [String?] in
            async let child = ChangeAuthor.name
            let grouped = await withTaskGroup(of: String?.self) { group in
                group.addTask { ChangeAuthor.name }
                return await group.next() ?? nil
            }
            return [ChangeAuthor.name, await child, grouped]
        }
        #expect(seen == ["alice@example.com", "alice@example.com", "alice@example.com"])
        #expect(ChangeAuthor.name == nil, "the author outlived its scope")
    }

    @Test func madeByIsTheAuthorElseTheOrigin() {
        func record(author: String?) -> ChangeRecord {
            ChangeRecord(
                id: 1, key: "new-checkout", oldValue: false, newValue: true, hadValue: true, hasValue: true, isRedacted: false,
                date: Date(timeIntervalSince1970: 0), author: author, origin: "role stowage, application psql")
        }
        #expect(record(author: "deploy #4711").madeBy == "deploy #4711")
        #expect(record(author: nil).madeBy == "role stowage, application psql")
    }
}
