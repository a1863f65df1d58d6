import Foundation
import StowageJSONFile
import Testing
import StowageTestSupport

/// What the file looks like, and how values and keys map onto it.
struct JSONFileStoreFormatTests {
    let directory = TemporaryDirectory()

    private func text(_ name: String = "settings.json") -> String {
        String(decoding: fileBytes(directory.file(name)) ?? [], as: UTF8.self)
    }

    @Test func writesSortedPrettyPrintedJSONByDefault() throws {
        let store = JSONFileStore(url: directory.url())
        try store.set("dark", forKey: "theme")
        try store.set(7, forKey: "volume")
        try store.set(["b", "a"], forKey: "Recent")
        try store.flush()
        #expect(text() == "{\n  \"Recent\": [\n    \"b\",\n    \"a\"\n  ],\n  \"theme\": \"dark\",\n  \"volume\": 7\n}\n")
    }

    @Test func writesCompactJSONWhenAsked() throws {
        let store = JSONFileStore(url: directory.url(), options: .init(prettyPrinted: false))
        try store.set(["port": 8080, "host": "example.org"] as [String: StoredValue], forKey: "server")
        try store.flush()
        #expect(text() == #"{"server":{"host":"example.org","port":8080}}"#)
    }

    @Test func keepsIntegersExactAcrossTheWholeRange() throws {
        let store = JSONFileStore(url: directory.url())
        try store.set(Int64.min, forKey: "min")
        try store.set(UInt64.max, forKey: "max")
        try store.flush()
        #expect(text().contains("\"max\": 18446744073709551615"))
        #expect(text().contains("\"min\": -9223372036854775808"))
        let reopened = store.reopened()
        #expect(try reopened.value(forKey: "min", as: Int64.self) == .min)
        #expect(try reopened.value(forKey: "max", as: UInt64.self) == .max)
    }

    @Test func writesDataAsBase64DatesAsISO8601AndCodablesAsNestedJSON() throws {
        struct Window: Codable, Equatable, Storable { var width: Int; var title: String }
        let store = JSONFileStore(url: directory.url())
        try store.set(Data([0, 1, 2, 255]), forKey: "blob")
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        try store.set(date, forKey: "when")
        try store.set(Window(width: 640, title: "Main"), forKey: "window")
        try store.flush()
        #expect(text().contains("\"blob\": \"AAEC/w==\""))
        #expect(text().contains("\"when\": \"2023-11-14T22:13:20.250Z\""))
        #expect(text().contains("\"window\": {\n    \"title\": \"Main\",\n    \"width\": 640\n  }"))
        let reopened = store.reopened()
        #expect(try reopened.value(forKey: "blob", as: Data.self) == Data([0, 1, 2, 255]))
        #expect(try reopened.value(forKey: "when", as: Date.self) == date)
        #expect(try reopened.value(forKey: "window", as: Window.self) == Window(width: 640, title: "Main"))
    }

    @Test func refusesNonFiniteDoublesAtTheSetterNamingTheKey() throws {
        let store = JSONFileStore(url: directory.url())
        let error = #expect(throws: StorageError.self) { try store.set(Double.nan, forKey: "ratio") }
        #expect(error?.key == "ratio")
        #expect(error?.message.contains("NaN") == true)
        #expect(store.storedValue(forKey: "ratio", .granted) == nil)
    }

    /// A date text can not hold was normalized to text that reads back as
    /// another date; it is refused when set, like NaN, and the file keeps its values.
    @Test func refusesDatesWithoutAnISO8601FormAtTheSetterNamingTheKey() throws {
        let store = JSONFileStore(url: directory.url())
        let kept = Date(timeIntervalSince1970: 1_700_000_000)
        try store.set([kept], forKey: "history")
        try store.flush()
        let before = fileBytes(directory.file())
        for date in [Date(timeIntervalSinceReferenceDate: 3_092_549_673_600), Date(timeIntervalSince1970: -1e12)] {
            let error = #expect(throws: StorageError.self) { try store.set([kept, date], forKey: "history") }
            #expect(error?.code == .encodingFailed)
            #expect(error?.key == "history")
            #expect(error?.message.contains("99,999") == true)
        }
        try store.flush()
        #expect(fileBytes(directory.file()) == before)
        #expect(try store.reopened().value(forKey: "history", as: [Date].self) == [kept])
    }

    @Test func readsAndWritesNestedObjectsInTheNestedLayout() throws {
        writeFile(directory.file(), #"{"server": {"port": 8080, "tls": {"enabled": true}}, "name": "demo"}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(keyLayout: .nested()))
        #expect(try store.value(forKey: "server.port", as: Int.self) == 8080)
        #expect(try store.value(forKey: "server.tls.enabled", as: Bool.self) == true)
        #expect(try store.value(forKey: "name", as: String.self) == "demo")
        try store.set(9090, forKey: "server.port")
        try store.set("info", forKey: "logging.level")
        try store.removeValue(forKey: "server.tls.enabled")
        try store.flush()
        let written = try JSONSerialization.jsonObject(with: Data(fileBytes(directory.file()) ?? [])) as? NSDictionary
        let expected: NSDictionary = ["server": ["port": 9090], "name": "demo", "logging": ["level": "info"]]
        #expect(written == expected)
    }

    @Test func reportsAKeyThatWouldBeBothAValueAndAPrefix() throws {
        let store = JSONFileStore(url: directory.url(), options: .init(keyLayout: .nested()))
        try store.set("example.org", forKey: "server")
        let conflict = #expect(throws: StorageError.self) { try store.set(8080, forKey: "server.port") }
        #expect(conflict?.code == .keyConflict)
        #expect(conflict?.key == "server.port")
        #expect(conflict?.message.contains("\"server\" holds a string") == true)
        #expect(try store.value(forKey: "server", as: String.self) == "example.org")

        try store.removeValue(forKey: "server")
        try store.set(8080, forKey: "server.port")
        let reverse = #expect(throws: StorageError.self) { try store.set("x", forKey: "server") }
        #expect(reverse?.code == .keyConflict)
        #expect(try store.value(forKey: "server.port", as: Int.self) == 8080)
    }

    @Test func nestedKeysAnnounceTheObjectsAroundThem() async throws {
        let store = JSONFileStore(url: directory.url(), options: .init(keyLayout: .nested()))
        struct Server: Codable, Equatable, Storable { var port: Int }
        let server = store.reference(forKey: "server", as: Server.self)
        #expect(try server.read() == nil)
        try store.set(8080, forKey: "server.port")
        #expect(try server.read() == Server(port: 8080))
        try server.set(Server(port: 1))
        #expect(try store.value(forKey: "server.port", as: Int.self) == 1)
        #expect(try store.reference(forKey: "server.port", as: Int.self).read() == 1)
    }

    @Test func aReloadInTheNestedLayoutAnnouncesExactlyTheKeysWhoseValueChanged() throws {
        writeFile(directory.file(), #"{"server": {"port": 1, "host": "a"}, "mode": "x", "gone": 1}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(keyLayout: .nested(), changeDetection: .none))
        let keys = ["server", "server.port", "server.host", "mode", "gone", "new", "new.flag"]
        let counters = Dictionary(uniqueKeysWithValues: keys.map { ($0, Counter()) })
        let tokens = keys.map { key in
            store.reference(forKey: key, as: StoredValue.self).observe { _ in counters[key]!.increment() }
        }
        defer { tokens.forEach { $0.cancel() } }
        writeFile(directory.file(), #"{"server": {"port": 2, "host": "a"}, "mode": "x", "new": {"flag": true}}"#)
        try store.reload()
        let fired = Set(keys.filter { counters[$0]!.value > 0 })
        #expect(fired == ["server", "server.port", "gone", "new", "new.flag"])
        #expect(keys.allSatisfy { counters[$0]!.value <= 1 })
    }

    @Test func duplicateKeysInAFileFollowTheLastOneWins() throws {
        writeFile(directory.file(), #"{"mode": "first", "mode": "last"}"#)
        let store = JSONFileStore(url: directory.url())
        #expect(try store.value(forKey: "mode", as: String.self) == "last")
    }

    /// `"\u00E1"` and `"a\u0301"` are two names in JSON but one key in Swift,
    /// whose strings are equal when canonically equivalent. The store took the
    /// later member's value under the earlier member's spelling, said nothing,
    /// and the next write silently kept a member that was in no file.
    @Test func canonicallyEquivalentNamesAreOneKeyReportedWithBothSpellingsAndTheLastMemberKeptWhole() throws {
        ReportedErrors.install()
        writeFile(directory.file(), #"{"\u00E1": "precomposed", "a\u0301": "decomposed", "other": 1}"#)
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none))

        #expect(try store.value(forKey: "\u{E1}", as: String.self) == "decomposed")
        #expect(try store.value(forKey: "a\u{301}", as: String.self) == "decomposed")
        let report = try #require(ReportedErrors.mentioning(directory.file()).first { $0.message.contains("repeats keys") })
        #expect(report.message.contains("U+0061 U+0301") && report.message.contains("U+00E1"), "\(report.message)")

        try store.set(2, forKey: "other")
        try store.flush()
        let bytes = fileBytes(directory.file()) ?? []
        #expect(bytes.contains([0x61, 0xCC, 0x81]), "the last member's spelling is written")
        #expect(!bytes.contains([0xC3, 0xA1]), "the earlier member's spelling is gone")
        #expect(String(decoding: bytes, as: UTF8.self).contains("decomposed"))
    }
}

extension JSONFileStore {
    /// A store that reads the same file afresh, sharing no state with this one.
    func reopened() -> JSONFileStore {
        JSONFileStore(url: url, options: .init(prettyPrinted: !options.prettyPrinted, keyLayout: options.keyLayout, changeDetection: .none))
    }
}
